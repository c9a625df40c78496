package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

/**
 * Where locks are kept: the store SPI under {@link LockEngine}. A store takes and releases one key at a time;
 * the engine decides everything that spans keys or acquisitions (reentrancy, multi-key, holdAtLeast). Each
 * store states its guarantees in its own Javadoc. Internal: used by the stores of this library, not part of its
 * API.
 */
public interface LockStore {

    /**
     * The store's key for a lock name: the key prefix added and the store's key rules checked, before anything
     * is sent.
     * @throws io.github.redislock.LockException if the name makes a key the store refuses
     */
    String key(String name);

    /**
     * Takes one key, waiting as the store waits (queues, retries, watches) until {@code deadlineNanos}
     * ({@link System#nanoTime()}; compare as {@code deadline - now}, the sum may have wrapped).
     * @param leaseMillis the lease of the lock
     * @param renewed whether the store keeps the lease alive until the lock is released
     * @return the lock, or {@code null} when the key stayed taken by someone else until the deadline (nothing is
     * then held)
     * @throws io.github.redislock.LockException if the store fails or the thread is interrupted (nothing is then
     * held)
     */
    @Nullable StoreLock take(String key, long leaseMillis, boolean renewed, long deadlineNanos);
}
