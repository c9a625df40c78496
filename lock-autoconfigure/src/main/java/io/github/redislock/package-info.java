/**
 * The public API of redis-lock: {@link io.github.redislock.DistributedLockTemplate} (programmatic locking,
 * and the one path {@code @DistributedLock} runs through as well), {@link io.github.redislock.LockRequest}
 * (what to lock and how, checked once), {@link io.github.redislock.LockHandle},
 * {@link io.github.redislock.LockContext}, the exceptions and {@link io.github.redislock.LockLostEvent}.
 * {@link io.github.redislock.LockProvider} is the seam to the engine that takes the locks.
 */
@NullMarked
package io.github.redislock;

import org.jspecify.annotations.NullMarked;
