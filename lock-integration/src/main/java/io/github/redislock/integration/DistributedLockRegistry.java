package io.github.redislock.integration;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;
import org.springframework.integration.support.locks.RenewableLockRegistry;
import org.springframework.scheduling.TaskScheduler;

import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * Spring Integration's lock registry over this library's {@link LockProvider}: what an aggregator, a
 * {@code LockRegistryLeaderInitiator} or {@code executeLocked} locks is taken in the application's store (one
 * Redis, Redlock, ZooKeeper), with fencing tokens, fair hand-off, meters, the endpoint and {@code LockLostEvent}s.
 * <p>
 * {@link #obtain} returns one lock per key (a {@code String}), shared by the application's threads, with
 * {@link java.util.concurrent.locks.Lock} semantics per thread:
 * <ul>
 * <li>Reentrant: a thread that holds it locks again at once, with no store call; it is released in the store
 * when the thread has unlocked as often as it locked. Other threads of this application wait locally (they cost
 * the store nothing), other applications in the store.</li>
 * <li>{@code lock()} and {@code tryLock(...)}: a lease of {@code leaseTime}, extended every third of it while held,
 * so a holder keeps the lock as long as it likes (a leader past any number of leases) and a crashed one loses it
 * within one lease. {@code lock(ttl)} and {@code tryLock(wait, ttl)}: a fixed lease of {@code ttl}, not renewed:
 * the lock ends when it runs out, even if its holder still has it.</li>
 * <li>{@code unlock()} by a thread that does not hold it throws {@link IllegalMonitorStateException}, as
 * {@code Lock} specifies (Spring Integration's {@code RedisLockRegistry} throws {@link IllegalStateException}).
 * The last {@code unlock()} of a lock that was lost meanwhile (a fixed lease that ran out, a renewal that found
 * the key gone) releases nothing of anybody's and throws {@link java.util.ConcurrentModificationException}, as
 * Spring Integration's registries do; the loss has been signalled before ({@code LockLostEvent}).</li>
 * <li>{@code lockInterruptibly()} and {@code tryLock(time, unit)} answer interrupts; {@code lock()} does not (the
 * interrupt is kept for the caller). {@code newCondition()} is not supported.</li>
 * <li>{@link #renewLock(Object)} extends the calling thread's lock by its lease from now;
 * {@link #renewLock(Object, Duration)} to {@code ttl} from now, a fixed lease from then on. Both throw
 * {@link IllegalStateException} when the thread does not hold it or it was lost.</li>
 * </ul>
 * Locks are scoped by the registry: two registries (in one application or two) over the same key exclude each
 * other through the store, the same thread included. The registry's renewals run on a daemon thread of its own,
 * or on the scheduler given to {@link #setRenewalTaskScheduler}; {@link #destroy()} stops that thread (locks
 * still held then end with their lease).
 */
public class DistributedLockRegistry implements ExpirableLockRegistry<DistributedLock>,
        RenewableLockRegistry<DistributedLock>, DisposableBean {

    private final LockProvider locks;

    private final Duration leaseTime;

    private final LeaseRenewals renewals = new LeaseRenewals();

    private final ConcurrentHashMap<String, RegistryLock> byKey = new ConcurrentHashMap<>();

    /**
     * @param locks where the locks are taken: the application's {@link LockProvider}
     * @param leaseTime the lease of locks taken by {@code lock()} and {@code tryLock()}, renewed every third of it
     * while held; from 3 ms (a renewal period of at least 1 ms) to {@link LockRequest#MAX_LEASE}
     * @throws IllegalArgumentException if either is missing or the lease out of range
     */
    public DistributedLockRegistry(LockProvider locks, Duration leaseTime) {
        if (locks == null) {
            throw new IllegalArgumentException("A DistributedLockRegistry needs a LockProvider");
        }
        if (leaseTime == null || leaseTime.compareTo(Duration.ofMillis(3)) < 0
                || leaseTime.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("The leaseTime of a DistributedLockRegistry must be from 3 ms to "
                    + LockRequest.MAX_LEASE.toDays() + " days, got " + leaseTime);
        }
        this.locks = locks;
        this.leaseTime = leaseTime;
    }

    /**
     * The lock of this key, the same object for every call until {@link #expireUnusedOlderThan} drops it.
     * @throws IllegalArgumentException if the key is not a {@code String}
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        return lockOf(lockKey);
    }

    private RegistryLock lockOf(Object lockKey) {
        if (!(lockKey instanceof String key)) {
            throw new IllegalArgumentException("The lock keys of a DistributedLockRegistry are Strings, got "
                    + ((lockKey != null) ? lockKey.getClass().getName() : "null"));
        }
        return this.byKey.computeIfAbsent(key, (name) -> new RegistryLock(name, this.locks, this.leaseTime,
                this.renewals));
    }

    /** Forgets the locks no thread here holds or waits for, last taken more than {@code age} ms ago. */
    @Override
    public void expireUnusedOlderThan(long age) {
        long now = System.currentTimeMillis();
        this.byKey.values().removeIf((lock) -> !lock.isInUse() && now - lock.lockedAt() > age);
    }

    /**
     * Extends the calling thread's lock of this key by the lease it has, from now.
     * @throws IllegalStateException if this thread does not hold it, or it was lost
     */
    @Override
    public void renewLock(Object lockKey) {
        lockOf(lockKey).renew();
    }

    /**
     * Extends the calling thread's lock of this key to {@code ttl} from now: a fixed lease from then on.
     * @throws IllegalStateException if this thread does not hold it, or it was lost
     * @throws IllegalArgumentException if the ttl is out of range
     */
    @Override
    public void renewLock(Object lockKey, Duration ttl) {
        lockOf(lockKey).renew(ttl);
    }

    /** Renews the locks taken from now on, with this scheduler instead of a thread of the registry's own. */
    @Override
    public void setRenewalTaskScheduler(TaskScheduler renewalTaskScheduler) {
        this.renewals.use(renewalTaskScheduler);
    }

    /** Stops the registry's own renewal thread, if it made one. */
    @Override
    public void destroy() {
        this.renewals.close();
    }

    @Override
    public String toString() {
        return "DistributedLockRegistry[" + this.locks + ", lease " + this.leaseTime + "]";
    }
}
