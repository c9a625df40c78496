package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;

/**
 * One key held by this application through {@link LockEngine}: the store's lock, the thread that may enter it
 * again, how many acquisitions share it, the longest holdAtLeast among them, its local lease clock and whether
 * it was found lost.
 * <pre>
 * state    event                                                            next state
 * (free)   the store takes the key, with at least a tenth of its validity    HELD(1)
 *          left ({@link Acquirer}: a stale one is released, never entered)
 * HELD(n)  the owner thread asks again (reentrant request, lock held)       HELD(n+1)
 * HELD(n)  an acquisition ends, n &gt; 1                                     HELD(n-1)
 * HELD(n)  a renewal round extends it                                       HELD(n), lease counted from the round
 * HELD(n)  renewal, commit check or the store finds it no longer held       LOST(n), signalled once
 * HELD(n)  a renewal round cannot tell ({@link Extension#UNKNOWN})          HELD(n), lease unchanged, asked again
 * HELD(n)  a renewal tick finds its lease run out by the local clock with     LOST(n), signalled once (RENEWAL),
 *          no extension confirmed before (rounds failed, left it unknown,     never extended again
 *          or answered late)
 * HELD(1)  the last acquisition ends                                        RELEASED: the store releases or keeps
 *                                                                           the key (holdAtLeast)
 * HELD(1)  the last acquisition ends, the release finds the key not ours   LOST(0), signalled once
 * LOST(n)  an acquisition ends                                              LOST(n-1); at 0 the store releases
 *                                                                           (keeping nothing), not signalled again
 * </pre>
 * Nobody enters a LOST or RELEASED lock again, and a lock moved to RELEASED is never marked lost (a renewal on its
 * way finds the key gone because it was released). Held as far as this JVM can tell ({@link #isHeld}): HELD, the
 * store's lock valid, and (leased stores) its lease not run out by the local clock since the last take or
 * extension was sent, which errs on the safe side: the store started the lease later. A lease that runs out
 * before an extension was confirmed ends the lock for good (the LOST row above): an extension confirmed after
 * that never makes it held again.
 * <p>
 * Shared keys (read locks, a semaphore's permits) have one entry per holder here, each with a lock of its own in
 * the store; what a thread that holds one may enter again is {@link LockEngine}'s rule.
 * <p>
 * A lock taken for a non-reentrant request has no owner thread: nobody enters it again, and it ends after its
 * one acquisition. The counts are guarded by this; the state and lease clock are read without locking.
 */
final class Entry {

    private static final int HELD = 0;

    private static final int RELEASED = 1;

    private static final int LOST = 2;

    private static final AtomicIntegerFieldUpdater<Entry> STATE = AtomicIntegerFieldUpdater.newUpdater(Entry.class,
            "state");

    final StoreLock lock;

    final long leaseMillis;

    final boolean renewed;

    /** How the key is shared: the kind this acquisition asked for. */
    final Sharing sharing;

    /** The thread that may enter again, or {@code null} for a lock no thread owns. */
    private final @Nullable Thread owner;

    /**
     * Where holdAtLeast counts from ({@link System#nanoTime()}): when the store returned the lock, after it took
     * the key, so the key is kept at least as long as asked (longer by at most the store's reply).
     */
    final long holdFromNanos;

    /** How long after a lease starts the lock counts as held, in ns; {@code Long.MAX_VALUE}: no lease. */
    private final long validNanos;

    /** When the engine's last extension was sent ({@link System#nanoTime()}). */
    private volatile long extendedAtNanos;

    private volatile int state = HELD;

    /** Acquisitions sharing the lock; 0: ended. */
    private int holds = 1;

    /** The longest holdAtLeast of the acquisitions sharing the lock, in ns; 0: none. */
    private long holdAtLeastNanos;

    /**
     * @param validNanos how long after a lease starts the lock counts as held; {@code Long.MAX_VALUE} for a store
     * without leases
     * @param takenAtNanos when the store returned the lock ({@link System#nanoTime()})
     */
    Entry(StoreLock lock, Sharing sharing, long leaseMillis, boolean renewed, long validNanos, boolean reentrant,
            long holdAtLeastNanos, long takenAtNanos) {
        this.lock = lock;
        this.sharing = sharing;
        this.leaseMillis = leaseMillis;
        this.renewed = renewed;
        this.validNanos = validNanos;
        this.owner = reentrant ? Thread.currentThread() : null;
        this.holdAtLeastNanos = holdAtLeastNanos;
        this.extendedAtNanos = lock.leaseStartNanos();
        this.holdFromNanos = takenAtNanos;
    }

    /** HELD, valid in the store, and the lease not run out by this JVM's clock. */
    boolean isHeld() {
        return this.state == HELD && this.lock.isValid() && !leaseRanOut(System.nanoTime());
    }

    /**
     * HELD, valid in the store, and at {@code nowNanos} at least {@code marginNanos} of its lease left by this
     * JVM's clock (always, for a store without leases).
     */
    boolean leaves(long marginNanos, long nowNanos) {
        return this.state == HELD && this.lock.isValid()
                && (this.validNanos == Long.MAX_VALUE || expiresAtNanos() - nowNanos >= marginNanos);
    }

    boolean isLost() {
        return this.state == LOST;
    }

    /** Whether its lease (leased stores) has run out by this JVM's clock at {@code nowNanos}. */
    boolean leaseRanOut(long nowNanos) {
        return this.validNanos != Long.MAX_VALUE && nowNanos - expiresAtNanos() >= 0;
    }

    /** Until when the lease surely lasts, by this JVM's clock. */
    private long expiresAtNanos() {
        long start = this.extendedAtNanos;
        long storeStart = this.lock.leaseStartNanos();
        return ((storeStart - start > 0) ? storeStart : start) + this.validNanos;
    }

    /** When the current lease began ({@link System#nanoTime()}), for the endpoint. */
    long leaseStartNanos() {
        long start = this.extendedAtNanos;
        long storeStart = this.lock.leaseStartNanos();
        return (storeStart - start > 0) ? storeStart : start;
    }

    /** A renewal round sent at {@code sentAtNanos} extended it. */
    void extended(long sentAtNanos) {
        if (sentAtNanos - this.extendedAtNanos > 0) {
            this.extendedAtNanos = sentAtNanos;
        }
    }

    /**
     * HELD(n) to HELD(n+1) for the owner thread while the lock is held, keeping the longer of the two minimums
     * (the outermost acquisition's moment still counts); false, changing nothing, otherwise.
     */
    synchronized boolean enterAgain(long holdAtLeastNanos) {
        if (Thread.currentThread() != this.owner || this.holds == 0 || !isHeld()) {
            return false;
        }
        this.holds++;
        this.holdAtLeastNanos = Math.max(this.holdAtLeastNanos, holdAtLeastNanos);
        return true;
    }

    /** Whether this thread may enter it again (a lock taken by a reentrant request of that thread). */
    boolean isOwnedBy(Thread thread) {
        return this.owner == thread;
    }

    /** Ends one acquisition; true when it was the last, and the key must be released. */
    synchronized boolean exitOne() {
        return this.holds > 0 && --this.holds == 0;
    }

    /** HELD to LOST; true only for the caller that made the move (so the loss is signalled once). */
    boolean markLost() {
        return STATE.compareAndSet(this, HELD, LOST);
    }

    /** HELD to RELEASED as the release begins; false if it was LOST already. */
    boolean markReleased() {
        return STATE.compareAndSet(this, HELD, RELEASED);
    }

    /** The release found the key not ours: RELEASED to LOST. */
    void lostAtRelease() {
        this.state = LOST;
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

    /** What the endpoint shows of it; {@code now} pairs {@link System#nanoTime()} with the wall clock. */
    synchronized LockEngineState.HeldKey view(long nowNanos, Instant now) {
        return new LockEngineState.HeldKey(this.lock.key(), this.lock.fencingToken(),
                now.minusNanos(nowNanos - this.holdFromNanos), Duration.ofMillis(this.leaseMillis), this.renewed,
                now.minusNanos(nowNanos - leaseStartNanos()),
                (this.owner != null) ? this.owner.getName() : "(asynchronous work)", this.holds, this.sharing);
    }

    @Override
    public String toString() {
        return this.lock.key();
    }
}
