/**
 * Spring Integration over this library: {@link io.github.redislock.integration.DistributedLockRegistry}, a
 * renewable, expirable lock registry over the application's {@link io.github.redislock.LockProvider}.
 */
@NullMarked
package io.github.redislock.integration;

import org.jspecify.annotations.NullMarked;
