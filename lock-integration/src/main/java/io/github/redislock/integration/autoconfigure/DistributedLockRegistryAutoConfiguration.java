package io.github.redislock.integration.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.integration.DistributedLockRegistry;

/**
 * A {@link DistributedLockRegistry} over the application's {@link LockProvider}, for the application to hand to
 * its aggregators, leader initiators and {@code executeLocked} calls. Backs off when the application defines a
 * {@link LockRegistry} itself, when there is no {@link LockProvider}, and with {@code redis-lock.enabled=false}.
 */
@AutoConfiguration(after = { LockEngineAutoConfiguration.class, RedisLockAutoConfiguration.class })
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockProvider.class)
@EnableConfigurationProperties(IntegrationLockProperties.class)
public final class DistributedLockRegistryAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    DistributedLockRegistry distributedLockRegistry(LockProvider locks, IntegrationLockProperties properties) {
        return new DistributedLockRegistry(locks, properties.getLeaseTime());
    }
}
