/**
 * ShedLock over this library: {@link io.github.redislock.shedlock.DistributedLockShedLockProvider}, ShedLock's
 * {@code LockProvider} over the application's {@link io.github.redislock.LockProvider}.
 */
@NullMarked
package io.github.redislock.shedlock;

import org.jspecify.annotations.NullMarked;
