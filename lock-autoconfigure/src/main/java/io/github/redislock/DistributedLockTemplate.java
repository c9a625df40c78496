package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

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
 * {@code null} duration means the configured default ({@code redis-lock.wait-time},
 * {@code redis-lock.lease-time}). The lease is fixed: the key expires after it even if the action is still
 * running.
 */
public class DistributedLockTemplate {

    private final RedisLockClient client;

    private final Duration defaultWaitTime;

    private final Duration defaultLeaseTime;

    public DistributedLockTemplate(RedisLockClient client, Duration defaultWaitTime, Duration defaultLeaseTime) {
        this.client = client;
        this.defaultWaitTime = defaultWaitTime;
        this.defaultLeaseTime = defaultLeaseTime;
    }

    /**
     * Runs the action under the lock and returns its result.
     * @throws LockNotAcquiredException if the lock stays taken for the whole wait time (the action does not run)
     * @throws LockException if Redis fails while the lock is taken (the action does not run)
     */
    public <T> T execute(String key, Duration waitTime, Duration leaseTime, Supplier<T> action) {
        long start = System.nanoTime();
        LockHandle handle = acquire(key, waitTime, leaseTime);
        if (handle == null) {
            throw new LockNotAcquiredException(List.of(this.client.redisKey(key, key)),
                    Duration.ofNanos(System.nanoTime() - start));
        }
        Throwable failure = null;
        try {
            return action.get();
        }
        catch (Throwable ex) {
            failure = ex;
            throw ex;
        }
        finally {
            LockedCall.release(handle, failure);
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
     * @return the handle, or empty if the lock stayed taken for the whole wait time
     * @throws LockException if Redis fails (nothing is then held)
     */
    public Optional<LockHandle> tryAcquire(String key, Duration waitTime, Duration leaseTime) {
        return Optional.ofNullable(acquire(key, waitTime, leaseTime));
    }

    private LockHandle acquire(String key, Duration waitTime, Duration leaseTime) {
        Duration wait = (waitTime != null) ? waitTime : this.defaultWaitTime;
        Duration lease = (leaseTime != null) ? leaseTime : this.defaultLeaseTime;
        if (wait.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + wait);
        }
        if (lease.isNegative() || lease.isZero() || lease.toMillis() == 0) {
            throw new IllegalArgumentException("leaseTime must be at least 1 ms: " + lease);
        }
        String redisKey = this.client.redisKey(key, key);
        return this.client.acquire(List.of(redisKey), wait.toNanos(), lease.toMillis());
    }
}
