package io.github.redislock.integration;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import org.springframework.integration.support.locks.DistributedLock;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * One key of a {@link DistributedLockRegistry}, shared by the threads of this application: a local
 * {@link ReentrantLock} orders them (re-entry and local contention cost no round trip), and its holder alone
 * holds the store's lock, through one {@link LockHandle}.
 * <pre>
 * state              event                                                 next state
 * FREE               a thread gets the local lock, then the store's         HELD(1) by it (handle, lease)
 * FREE               ... but the store's stays taken until the wait ends    FREE (local lock released), false
 * HELD(n) by T       T locks again, the handle still held                   HELD(n+1), nothing sent
 * HELD(n) by T       T locks again, the handle found lost                    the store's taken anew (HELD(n+1) with
 *                                                                          the new handle), or HELD(n) and false
 * HELD(n) by T       T unlocks, n &gt; 1                                      HELD(n-1), nothing sent
 * HELD(1) by T       T unlocks                                              FREE: the handle closed (released);
 *                                                                          ConcurrentModificationException if it
 *                                                                          had been lost
 * HELD(n) by T       another thread unlocks                                 HELD(n), IllegalMonitorStateException
 * </pre>
 * The store's lock ({@code Hold}) is written only by the thread holding the local lock. A renewed lock
 * ({@link #lock()}, {@link #tryLock()}) has a lease of the registry's {@code leaseTime}, extended by
 * {@link LeaseRenewals} every third of it while held; {@link #lock(Duration)} and
 * {@link #tryLock(Duration, Duration)} take a fixed lease of their ttl.
 */
final class RegistryLock implements DistributedLock {

    private final String key;

    private final LockProvider locks;

    /** The lease of {@link #lock()} and {@link #tryLock()}, renewed by {@link #renewals} while held. */
    private final Duration leaseTime;

    private final LeaseRenewals renewals;

    private final ReentrantLock local = new ReentrantLock();

    /** The store's lock while a thread holds this one. */
    private volatile @Nullable Hold hold;

    /** When a thread last got the lock ({@link System#currentTimeMillis()}), for {@code expireUnusedOlderThan}. */
    private volatile long lockedAt;

    RegistryLock(String key, LockProvider locks, Duration leaseTime, LeaseRenewals renewals) {
        this.key = key;
        this.locks = locks;
        this.leaseTime = leaseTime;
        this.renewals = renewals;
    }

    @Override
    public void lock() {
        lockFor(null);
    }

    @Override
    public void lock(Duration ttl) {
        lockFor(checkTtl(ttl));
    }

    /** Takes the lock, with a fixed lease of {@code ttl}, or renewed ({@code null}). */
    private void lockFor(@Nullable Duration ttl) {
        boolean interrupted = false;
        this.local.lock();
        try {
            while (true) {
                try {
                    if (enterStore(Duration.ofNanos(Long.MAX_VALUE), ttl)) {
                        return;
                    }
                }
                catch (InterruptedException ex) {
                    // Not interruptible: as Lock.lock() specifies, the interrupt is kept for the caller.
                    interrupted = true;
                }
            }
        }
        catch (RuntimeException | Error ex) {
            this.local.unlock();
            throw ex;
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        this.local.lockInterruptibly();
        takeOrUnlock(Duration.ofNanos(Long.MAX_VALUE), null);
    }

    @Override
    public boolean tryLock() {
        try {
            return tryLockFor(Duration.ZERO, null);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLockFor(Duration.of(time, unit.toChronoUnit()), null);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return tryLockFor(waitTime, checkTtl(ttl));
    }

    /** Waits up to {@code wait} for the lock, with a fixed lease of {@code ttl}, or renewed ({@code null}). */
    private boolean tryLockFor(Duration wait, @Nullable Duration ttl) throws InterruptedException {
        long start = System.nanoTime();
        if (!this.local.tryLock(wait.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        Duration left = wait.minusNanos(System.nanoTime() - start);
        return takeOrUnlock(left.isNegative() ? Duration.ZERO : left, ttl);
    }

    /** With the local lock held: the store's lock, or the local lock given back and false (or the failure). */
    private boolean takeOrUnlock(Duration wait, @Nullable Duration ttl) throws InterruptedException {
        boolean taken = false;
        try {
            taken = enterStore(wait, ttl);
            return taken;
        }
        finally {
            if (!taken) {
                this.local.unlock();
            }
        }
    }

    /**
     * With the local lock just taken (once more): true at once for a re-entry whose handle is still held, else
     * the store's lock taken within {@code wait}: with a fixed lease of {@code ttl}, or ({@code null}) a lease of
     * the registry's renewed by it while held.
     * @throws InterruptedException if the thread was interrupted while waiting in the store
     */
    private boolean enterStore(Duration wait, @Nullable Duration ttl) throws InterruptedException {
        Hold held = this.hold;
        if (held != null && held.handle.isHeld()) {
            return true;
        }
        Duration lease = (ttl != null) ? ttl : this.leaseTime;
        long askedAt = System.nanoTime();
        LockHandle taken;
        try {
            taken = this.locks.acquire(LockRequest.of(this.key, wait, lease).nonReentrant());
        }
        catch (LockNotAcquiredException ex) {
            return false;
        }
        catch (LockException ex) {
            if (Thread.interrupted()) {
                throw (InterruptedException) new InterruptedException("Interrupted while waiting for lock '"
                        + this.key + "'").initCause(ex);
            }
            throw ex;
        }
        if (held != null) {
            // A re-entry found the outer acquisition's lock lost and took the key anew: the old one is let go.
            held.end();
            closeQuietly(held.handle);
        }
        this.hold = new Hold(taken, lease, (ttl != null) ? null : this.renewals.keep(taken, lease, askedAt));
        this.lockedAt = System.currentTimeMillis();
        return true;
    }

    @Override
    public void unlock() {
        if (!this.local.isHeldByCurrentThread()) {
            throw new IllegalMonitorStateException("Lock '" + this.key + "' is not held by this thread ("
                    + Thread.currentThread().getName() + "); only the thread that locked it may unlock it");
        }
        if (this.local.getHoldCount() > 1) {
            this.local.unlock();
            return;
        }
        Hold held = this.hold;
        this.hold = null;
        try {
            if (held != null) {
                held.end();
                held.handle.close();
                if (held.handle.isLost()) {
                    throw new ConcurrentModificationException("Lock '" + this.key + "' was lost before it was "
                            + "unlocked (its lease ran out, or the store no longer held it): another holder may have "
                            + "run the same critical section, so the data it protects may be compromised");
                }
            }
        }
        finally {
            this.local.unlock();
        }
    }

    /**
     * Extends the store's lock of the thread that holds it ({@code renewLock(key)}) by the lease it has, from now.
     * @throws IllegalStateException if this thread does not hold it, or the store no longer does
     */
    void renew() {
        Hold held = heldHere();
        extend(held, held.lease);
    }

    /**
     * Extends the store's lock of the thread that holds it ({@code renewLock(key, ttl)}) to {@code ttl} from now, a
     * fixed lease from then on (the registry stops renewing it).
     * @throws IllegalStateException if this thread does not hold it, or the store no longer does
     */
    void renew(Duration ttl) {
        Duration lease = checkTtl(ttl);
        Hold held = heldHere();
        held.end();
        this.hold = new Hold(held.handle, lease, null);
        extend(held, lease);
    }

    private Hold heldHere() {
        Hold held = this.hold;
        if (!this.local.isHeldByCurrentThread() || held == null) {
            throw new IllegalStateException("Lock '" + this.key + "' is not held by this thread ("
                    + Thread.currentThread().getName() + "); only its holder may renew it");
        }
        return held;
    }

    private void extend(Hold held, Duration lease) {
        if (!held.handle.extend(lease)) {
            throw new IllegalStateException("Could not renew lock '" + this.key + "': it was lost (its lease ran "
                    + "out, or the store no longer held it)");
        }
    }

    /** Whether a thread of this application holds it (or waits for it locally) now. */
    boolean isInUse() {
        return this.local.isLocked() || this.local.hasQueuedThreads();
    }

    long lockedAt() {
        return this.lockedAt;
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported by the locks of a "
                + "DistributedLockRegistry (lock '" + this.key + "')");
    }

    /** A ttl must be a lease the store can keep: checked before anything is taken. */
    private Duration checkTtl(Duration ttl) {
        if (ttl == null || ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("The ttl of lock '" + this.key + "' must be from 1 ms to "
                    + LockRequest.MAX_LEASE.toDays() + " days, got " + ttl);
        }
        return ttl;
    }

    private static void closeQuietly(LockHandle lost) {
        try {
            lost.close();
        }
        catch (LockException ex) {
            // Lost already: nothing of it is ours in the store; it expires with its lease.
        }
    }

    /**
     * The store's lock of the holding thread: its handle, its lease, and the registry's renewal of it
     * ({@code null} for a fixed lease).
     */
    private record Hold(LockHandle handle, Duration lease, @Nullable ScheduledFuture<?> renewal) {

        /** Stops renewing it. */
        void end() {
            if (this.renewal != null) {
                this.renewal.cancel(false);
            }
        }
    }

    @Override
    public String toString() {
        return "RegistryLock[" + this.key + ", " + (this.local.isLocked() ? "locked" : "unlocked") + "]";
    }
}
