/**
 * Spring Boot auto-configuration of redis-lock, one job per class: each store contributes its {@code LockStore}
 * (the single Redis by default, {@link io.github.redislock.autoconfigure.RedlockAutoConfiguration Redlock}, the
 * ZooKeeper module's, lock-test's in-process store), {@link io.github.redislock.autoconfigure.LockEngineAutoConfiguration}
 * builds the one engine over it, {@link io.github.redislock.autoconfigure.RedisLockAutoConfiguration} puts the
 * template and {@code @DistributedLock} on it, and the endpoint and meters bind to it; the properties
 * ({@code redis-lock.*}), the start-up guard and the failure analysis of a bad lock declaration or setting.
 */
@NullMarked
package io.github.redislock.autoconfigure;

import org.jspecify.annotations.NullMarked;
