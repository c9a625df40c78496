package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * Locks within this JVM only, for tests where the lock is not what is tested and no Redis should be needed for it.
 * Opt in with {@link AutoConfigureInProcessLocks}; never use it in production, where the application's instances
 * would not exclude each other.
 * <p>
 * Within the JVM it behaves like the Redis engine: one holder per key at a time (other threads wait up to the
 * request's wait time, then get {@link LockNotAcquiredException}); the holding thread may take the key again
 * (reentrancy: nested handles, released when the outermost closes; other threads are never let in by it); several
 * keys are taken all or nothing; every acquisition of a key gets a larger fencing token than the one before; a
 * fixed lease ends on time, after which the key is free and the old handle reports itself lost; a renewed lease
 * lasts until the handle is closed; a request's holdAtLeast keeps a key whose handle closed sooner taken, by
 * nobody (not even the thread that held it), until that long after it was acquired. Keys are named with the key
 * prefix, as in Redis.
 */
public final class InProcessLockProvider implements LockProvider {

    private final String keyPrefix;

    /** Guards {@link #held} and {@link #lastFence}; waiting threads wait on it. */
    private final Object monitor = new Object();

    private final Map<String, Entry> held = new HashMap<>();

    private final Map<String, Long> lastFence = new HashMap<>();

    /** A provider whose keys carry no prefix. */
    public InProcessLockProvider() {
        this("");
    }

    /** @param keyPrefix put in front of every key, like {@code redis-lock.key-prefix} */
    public InProcessLockProvider(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    @Override
    public LockHandle acquire(LockRequest request) {
        long start = System.nanoTime();
        List<String> keys = new ArrayList<>(request.keys().size());
        for (String name : request.keys()) {
            keys.add(this.keyPrefix + name);
        }
        long leaseNanos = (request.leaseTime() != null) ? request.leaseTime().toNanos() : 0;
        List<Entry> taken = new ArrayList<>(keys.size());
        try {
            for (String key : keys) {
                Entry entry = acquireOne(key, start, request.waitNanos(), leaseNanos, request.isReentrant(),
                        request.holdAtLeastNanos());
                if (entry == null) {
                    throw new LockNotAcquiredException(keys, Duration.ofNanos(System.nanoTime() - start));
                }
                taken.add(entry);
            }
        }
        catch (RuntimeException | Error ex) {
            // All or nothing: give back what was taken.
            if (!taken.isEmpty()) {
                new Handle(taken).close();
            }
            throw ex;
        }
        return new Handle(taken);
    }

    /** @param reentrant whether the calling thread owns the lock (asynchronous work's lock has no owner) */
    private @Nullable Entry acquireOne(String key, long start, long waitNanos, long leaseNanos, boolean reentrant,
            long holdAtLeastNanos) {
        Thread me = reentrant ? Thread.currentThread() : null;
        synchronized (this.monitor) {
            while (true) {
                Entry entry = current(key);
                if (entry == null) {
                    long fence = this.lastFence.merge(key, 1L, Long::sum);
                    entry = new Entry(key, me, fence, leaseNanos);
                    entry.holdAtLeastNanos = holdAtLeastNanos;
                    this.held.put(key, entry);
                    return entry;
                }
                if (me != null && entry.owner == me && !entry.kept) {
                    entry.holds++;
                    // Counted from the outermost acquisition; the longest minimum asked for counts.
                    entry.holdAtLeastNanos = Math.max(entry.holdAtLeastNanos, holdAtLeastNanos);
                    return entry;
                }
                long left = waitNanos - (System.nanoTime() - start);
                if (left <= 0) {
                    return null;
                }
                long untilLeaseEnds = entry.nanosLeft();
                try {
                    TimeUnit.NANOSECONDS.timedWait(this.monitor, Math.min(left, untilLeaseEnds));
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new LockException("Interrupted while waiting for lock '" + key + "'", ex);
                }
            }
        }
    }

    /**
     * The entry holding the key now; one whose fixed lease ran out is dropped (and is lost), one kept for holdAtLeast
     * is dropped once the minimum has passed.
     */
    private @Nullable Entry current(String key) {
        Entry entry = this.held.get(key);
        if (entry != null && entry.nanosLeft() <= 0) {
            entry.lost = !entry.kept;
            this.held.remove(key);
            return null;
        }
        return entry;
    }

    /**
     * Whether the key (prefix included) is kept now after its handle closed, until holdAtLeast has passed since it
     * was acquired: taken, by nobody.
     */
    public boolean isKept(String key) {
        synchronized (this.monitor) {
            Entry entry = current(key);
            return entry != null && entry.kept;
        }
    }

    /** Whether the key (prefix included) is held now, or kept for holdAtLeast. */
    public boolean isHeld(String key) {
        synchronized (this.monitor) {
            return current(key) != null;
        }
    }

    private void exit(Entry entry) {
        synchronized (this.monitor) {
            if (--entry.holds > 0) {
                return;
            }
            if (this.held.get(entry.key) == entry) {
                long keepNanos = entry.holdAtLeastNanos - (System.nanoTime() - entry.acquiredAtNanos);
                if (keepNanos > 0) {
                    // Kept: the key stays taken, by nobody, until the minimum has passed (waiters are woken to
                    // wait for exactly that).
                    entry.kept = true;
                    entry.expiresAtNanos = System.nanoTime() + keepNanos;
                }
                else {
                    this.held.remove(entry.key);
                }
            }
            else {
                entry.lost = true;
            }
            this.monitor.notifyAll();
        }
    }

    /** One key's current holder: the thread, its fencing token, nested holds and lease. */
    private static final class Entry {

        final String key;

        /** The thread that may enter again, {@code null} for asynchronous work's lock. */
        final @Nullable Thread owner;

        final long fence;

        /** When a fixed lease ends, or a kept key is let go. */
        long expiresAtNanos;

        final boolean fixedLease;

        final long acquiredAtNanos = System.nanoTime();

        /** holdAtLeast of the acquisitions sharing the entry, in ns; 0: none. */
        long holdAtLeastNanos;

        /** Closed before holdAtLeast had passed: taken by nobody until {@link #expiresAtNanos}. */
        boolean kept;

        int holds = 1;

        boolean lost;

        Entry(String key, @Nullable Thread owner, long fence, long leaseNanos) {
            this.key = key;
            this.owner = owner;
            this.fence = fence;
            this.fixedLease = leaseNanos > 0;
            this.expiresAtNanos = System.nanoTime() + leaseNanos;
        }

        long nanosLeft() {
            return (this.fixedLease || this.kept) ? this.expiresAtNanos - System.nanoTime() : Long.MAX_VALUE;
        }
    }

    /** One acquisition of one or more keys; several are released together, in reverse order. */
    private final class Handle implements LockHandle {

        private final List<Entry> entries;

        private final String key;

        private boolean closed;

        Handle(List<Entry> entries) {
            this.entries = entries;
            // As the Redis engine names a multi-key lock: the keys, joined by commas.
            this.key = String.join(",", entries.stream().map((entry) -> entry.key).toList());
        }

        @Override
        public String key() {
            return this.key;
        }

        @Override
        public String token() {
            Entry first = this.entries.get(0);
            return "in-process-" + System.identityHashCode(first) + ":" + first.fence;
        }

        @Override
        public long fencingToken() {
            return this.entries.get(0).fence;
        }

        @Override
        public boolean isHeld() {
            synchronized (InProcessLockProvider.this.monitor) {
                return !this.closed && this.entries.stream().allMatch((entry) -> current(entry.key) == entry);
            }
        }

        @Override
        public boolean isLost() {
            synchronized (InProcessLockProvider.this.monitor) {
                return this.entries.stream().anyMatch((entry) -> {
                    current(entry.key);
                    return entry.lost;
                });
            }
        }

        @Override
        public boolean verifyHeld() {
            return isHeld();
        }

        @Override
        public void close() {
            synchronized (InProcessLockProvider.this.monitor) {
                if (this.closed) {
                    return;
                }
                this.closed = true;
                for (int i = this.entries.size() - 1; i >= 0; i--) {
                    Entry entry = this.entries.get(i);
                    // Reads the lease first, so that a lock whose fixed lease ran out is marked lost.
                    current(entry.key);
                    exit(entry);
                }
            }
        }

        @Override
        public String toString() {
            return "InProcessLockHandle[" + this.key + ", fence " + fencingToken() + "]";
        }
    }
}
