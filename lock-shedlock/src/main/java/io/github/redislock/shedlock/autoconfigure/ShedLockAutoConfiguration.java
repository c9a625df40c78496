package io.github.redislock.shedlock.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.shedlock.DistributedLockShedLockProvider;

/**
 * ShedLock's {@code LockProvider} over the application's {@link LockProvider}, so that {@code @EnableSchedulerLock}
 * and {@code @SchedulerLock} take their locks in the application's store with no provider bean of the
 * application's own. Backs off when the application defines a ShedLock {@code LockProvider} itself, when there is
 * no {@link LockProvider} (no store configured), and with {@code redis-lock.enabled=false}.
 */
@AutoConfiguration(after = { LockEngineAutoConfiguration.class, RedisLockAutoConfiguration.class })
@ConditionalOnClass(net.javacrumbs.shedlock.core.LockProvider.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@ConditionalOnBean(LockProvider.class)
@EnableConfigurationProperties(ShedLockProperties.class)
public final class ShedLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(net.javacrumbs.shedlock.core.LockProvider.class)
    DistributedLockShedLockProvider distributedLockShedLockProvider(LockProvider locks, ShedLockProperties properties) {
        return new DistributedLockShedLockProvider(locks, properties.getLease());
    }
}
