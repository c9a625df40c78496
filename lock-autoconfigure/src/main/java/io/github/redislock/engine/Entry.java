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
 * HELD(n)  {@link Extender}: the store extends it to a new fixed lease        HELD(n), that lease counted from the
 *                                                                           call, no longer renewed (renewed again
 *                                                                           only if the store could not answer)
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

    /** The lease it was taken or last extended with. */
    private volatile long leaseMillis;

    /** Whether the engine renews it; false for good from the first {@link Extender extension}. */
    private volatile boolean renewed;

    /** How the key is shared: the kind this acquisition asked for. */
    final Sharing sharing;

    /** The thread that may enter again, or {@code null} for a lock no thread owns. */
    private final @Nullable Thread owner;

    /**
     * Where holdAtLeast counts from ({@link System#nanoTime()}): when the store returned the lock, after it took
     * the key, so the key is kept at least as long as asked (longer by at most the store's reply).
     */
    final long holdFromNanos;

    /**
     * When the engine's last extension was sent, and how long after it the lock counts as held: one value, so
     * that a reader never pairs a new length with an old start.
     */
    private volatile Lease lease;

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
        this.lease = new Lease(lock.leaseStartNanos(), validNanos);
        this.owner = reentrant ? Thread.currentThread() : null;
        this.holdAtLeastNanos = holdAtLeastNanos;
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
        Lease lease = this.lease;
        return this.state == HELD && this.lock.isValid()
                && (lease.validNanos == Long.MAX_VALUE || lease.expiresAtNanos(this.lock) - nowNanos >= marginNanos);
    }

    boolean isLost() {
        return this.state == LOST;
    }

    /** Whether its lease (leased stores) has run out by this JVM's clock at {@code nowNanos}. */
    boolean leaseRanOut(long nowNanos) {
        Lease lease = this.lease;
        return lease.validNanos != Long.MAX_VALUE && nowNanos - lease.expiresAtNanos(this.lock) >= 0;
    }

    /** When the current lease began ({@link System#nanoTime()}), for the endpoint. */
    long leaseStartNanos() {
        return this.lease.startNanos(this.lock);
    }

    boolean isRenewed() {
        return this.renewed;
    }

    long leaseMillis() {
        return this.leaseMillis;
    }

    /** A renewal round sent at {@code sentAtNanos} extended it. */
    synchronized void extended(long sentAtNanos) {
        Lease lease = this.lease;
        if (sentAtNanos - lease.fromNanos > 0) {
            this.lease = new Lease(sentAtNanos, lease.validNanos);
        }
    }

    /** From now on a fixed lease: no renewal round will extend it again ({@link Extender}). */
    void stopRenewal() {
        this.renewed = false;
    }

    /** Renewed again: its extension failed before the store could confirm it ({@link Extender}). */
    void resumeRenewal() {
        this.renewed = true;
    }

    /**
     * An extension sent at {@code sentAtNanos} gave it a lease of {@code leaseMillis}, held for {@code validNanos}
     * by this JVM's clock; when {@code confirmed} is false (the store's answer never came), the lock keeps
     * whichever of the old and the new lease ends first, as the store may have applied either.
     */
    synchronized void extendedTo(long sentAtNanos, long leaseMillis, long validNanos, boolean confirmed) {
        Lease old = this.lease;
        Lease extended = new Lease(sentAtNanos, validNanos);
        if (confirmed || extended.expiresAtNanos(this.lock) - old.expiresAtNanos(this.lock) < 0) {
            this.lease = extended;
            this.leaseMillis = leaseMillis;
        }
    }

    /**
     * Keeps the key, when released, until at least {@code holdAtLeastNanos} after {@code nowNanos}, or longer if
     * an acquisition asked for more.
     */
    synchronized void holdAtLeastFrom(long nowNanos, long holdAtLeastNanos) {
        if (holdAtLeastNanos > 0) {
            this.holdAtLeastNanos = Math.max(this.holdAtLeastNanos, (nowNanos - this.holdFromNanos) + holdAtLeastNanos);
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

    /**
     * A lease as this JVM counts it: from when the request that began it was sent, for {@code validNanos}
     * ({@code Long.MAX_VALUE}: a store without leases). A store that moves its lock's lease start later (a Redis
     * lock passed on within the application) moves it too.
     */
    private record Lease(long fromNanos, long validNanos) {

        long startNanos(StoreLock lock) {
            long storeStart = lock.leaseStartNanos();
            return (storeStart - this.fromNanos > 0) ? storeStart : this.fromNanos;
        }

        /** Until when the lease surely lasts, by this JVM's clock. */
        long expiresAtNanos(StoreLock lock) {
            return startNanos(lock) + this.validNanos;
        }
    }
}
