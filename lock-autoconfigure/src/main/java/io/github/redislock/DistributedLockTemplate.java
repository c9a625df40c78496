package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.redislock.core.GuardedLock;
import io.github.redislock.core.LockedCall;
import io.github.redislock.core.RedisLockClient;
import io.github.redislock.core.ThreadLocks;

/**
 * Programmatic locking, for code that cannot use {@code @DistributedLock}: the lock name is computed at
 * run time, or only part of a method must be locked.
 *
 * <pre>{@code
 * Receipt receipt = lockTemplate.execute("sku:" + id + ":lock", Duration.ofMillis(500), null,
 *         () -> inventory.reserve(id));
 * }</pre>
 *
 * The key is used as given (after {@code redis-lock.key-prefix}); no expression is evaluated. A
 * {@code null} wait time means {@code redis-lock.wait-time}. A {@code null} lease time means a lease of
 * {@code redis-lock.lease-time} renewed for as long as the lock is held; a given lease is fixed and never
 * renewed. The same thread may take a lock it already holds (reentrancy); the lock is released when the
 * outermost holder is done.
 */
public class DistributedLockTemplate {

    private final RedisLockClient client;

    private final Duration defaultWaitTime;

    private final Duration defaultLeaseTime;

    private final OnLeaseLost onLeaseLost;

    public DistributedLockTemplate(RedisLockClient client, Duration defaultWaitTime, Duration defaultLeaseTime) {
        this(client, defaultWaitTime, defaultLeaseTime, OnLeaseLost.WARN);
    }

    /**
     * @param onLeaseLost whether {@link #execute} and {@link #run} throw {@link LockLostException} when the lock
     * was lost while the action ran
     */
    public DistributedLockTemplate(RedisLockClient client, Duration defaultWaitTime, Duration defaultLeaseTime,
            OnLeaseLost onLeaseLost) {
        this.client = client;
        this.defaultWaitTime = defaultWaitTime;
        this.defaultLeaseTime = defaultLeaseTime;
        this.onLeaseLost = onLeaseLost;
    }

    /**
     * Runs the action under the lock and returns its result. Inside the action,
     * {@link LockContext#current()} is this lock.
     * @throws LockNotAcquiredException if the lock stays taken for the whole wait time (the action does not run)
     * @throws LockException if Redis fails while the lock is taken (the action does not run)
     * @throws LockLostException if the lock was lost while the action ran and {@code redis-lock.on-lease-lost}
     * is {@code throw}
     */
    public <T> T execute(String key, Duration waitTime, Duration leaseTime, Supplier<T> action) {
        long start = System.nanoTime();
        GuardedLock handle = acquire(key, waitTime, leaseTime);
        if (handle == null) {
            throw new LockNotAcquiredException(List.of(this.client.redisKey(key, key)),
                    Duration.ofNanos(System.nanoTime() - start));
        }
        T result;
        ThreadLocks.push(handle);
        try {
            result = action.get();
        }
        catch (Throwable ex) {
            ThreadLocks.pop(handle);
            LockedCall.release(handle, ex);
            throw ex;
        }
        ThreadLocks.pop(handle);
        if (!LockedCall.release(handle, null) && this.onLeaseLost == OnLeaseLost.THROW) {
            throw new LockLostException(handle.key(), "Lock '" + handle.key() + "' was lost while the action ran");
        }
        return result;
    }

    /** Like {@link #execute}, for an action without a result. */
    public void run(String key, Duration waitTime, Duration leaseTime, Runnable action) {
        execute(key, waitTime, leaseTime, () -> {
            action.run();
            return null;
        });
    }

    /**
     * Takes the lock and hands it to the caller, who must close it (try-with-resources).
     * {@link LockContext} does not see such a handle.
     * @return the handle, or empty if the lock stayed taken for the whole wait time
     * @throws LockException if Redis fails (nothing is then held)
     */
    public Optional<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
        return Optional.ofNullable(acquire(key, waitTime, leaseTime));
    }

    private GuardedLock acquire(String key, Duration waitTime, Duration leaseTime) {
        Duration wait = (waitTime != null) ? waitTime : this.defaultWaitTime;
        if (wait.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + wait);
        }
        if (leaseTime != null && leaseTime.toMillis() < 1) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms: " + leaseTime);
        }
        String redisKey = this.client.redisKey(key, key);
        long lease = (leaseTime != null) ? leaseTime.toMillis() : this.defaultLeaseTime.toMillis();
        return this.client.acquire(List.of(redisKey), wait.toNanos(), lease, leaseTime == null);
    }
}
