package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.redislock.core.GuardedLock;
import io.github.redislock.core.LockedCall;
import io.github.redislock.core.RedisLockClient;

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
        String redisKey = this.client.redisKey(key, key);
        long start = System.nanoTime();
        GuardedLock handle = acquire(redisKey, waitTime, leaseTime);
        if (handle == null) {
            throw new LockNotAcquiredException(List.of(redisKey), Duration.ofNanos(System.nanoTime() - start));
        }
        try {
            return LockedCall.run(handle, this.onLeaseLost == OnLeaseLost.THROW, "the action", action::get);
        }
        catch (RuntimeException | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            // A Supplier cannot throw a checked exception; kept for the compiler.
            throw new IllegalStateException(ex);
        }
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
        return Optional.ofNullable(acquire(this.client.redisKey(key, key), waitTime, leaseTime));
    }

    private GuardedLock acquire(String redisKey, Duration waitTime, Duration leaseTime) {
        Duration wait = (waitTime != null) ? waitTime : this.defaultWaitTime;
        if (wait.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + wait);
        }
        if (leaseTime != null && leaseTime.toMillis() < 1) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms: " + leaseTime);
        }
        long lease = (leaseTime != null) ? leaseTime.toMillis() : this.defaultLeaseTime.toMillis();
        return this.client.acquire(List.of(redisKey), wait.toNanos(), lease, leaseTime == null);
    }
}
