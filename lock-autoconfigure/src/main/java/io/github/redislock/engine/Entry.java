package io.github.redislock.engine;

import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * One key held by this application through {@link LockEngine}: the store's lock, the thread that may enter it
 * again, how many acquisitions share it, and the longest holdAtLeast among them.
 * <pre>
 * (free) --the store takes the key--> HELD(1)
 * HELD(n) --the owner thread asks again (reentrant request, lock still held)--> HELD(n+1)
 * HELD(n) --an acquisition ends, n &gt; 1--> HELD(n-1)
 * HELD(1) --the last acquisition ends--> RELEASED (the store releases or keeps the key; never entered again)
 * </pre>
 * A lock taken for a non-reentrant request has no owner thread: nobody enters it again, and it ends after its
 * one acquisition. Guarded by this; the owner thread is the only one that enters, any thread may end one.
 */
final class Entry {

    final StoreLock lock;

    /** The thread that may enter again, or {@code null} for a lock no thread owns. */
    private final @Nullable Thread owner;

    /**
     * Where holdAtLeast counts from ({@link System#nanoTime()}): when the store returned the lock, after it took
     * the key, so the key is kept at least as long as asked (longer by at most the store's reply).
     */
    private final long holdFromNanos = System.nanoTime();

    /** Acquisitions sharing the lock; 0: released. */
    private int holds = 1;

    /** The longest holdAtLeast of the acquisitions sharing the lock, in ns; 0: none. */
    private long holdAtLeastNanos;

    Entry(StoreLock lock, boolean reentrant, long holdAtLeastNanos) {
        this.lock = lock;
        this.owner = reentrant ? Thread.currentThread() : null;
        this.holdAtLeastNanos = holdAtLeastNanos;
    }

    /**
     * HELD(n) to HELD(n+1) for the owner thread while the lock is held, keeping the longer of the two minimums
     * (the outermost acquisition's moment still counts); false, changing nothing, otherwise.
     */
    synchronized boolean enterAgain(long holdAtLeastNanos) {
        if (Thread.currentThread() != this.owner || this.holds == 0 || !this.lock.isHeld()) {
            return false;
        }
        this.holds++;
        this.holdAtLeastNanos = Math.max(this.holdAtLeastNanos, holdAtLeastNanos);
        return true;
    }

    /** Ends one acquisition; true when it was the last (the move to RELEASED) and the key must be released. */
    synchronized boolean exitOne() {
        return this.holds > 0 && --this.holds == 0;
    }

    /**
     * How many more milliseconds the key must be kept when released at {@code now}, rounded up; 0 when holdAtLeast
     * has passed (or none was asked for).
     */
    synchronized long keepMillis(long now) {
        long left = this.holdAtLeastNanos - (now - this.holdFromNanos);
        if (left <= 0) {
            return 0;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(left);
        return (TimeUnit.MILLISECONDS.toNanos(millis) < left) ? millis + 1 : millis;
    }
}
