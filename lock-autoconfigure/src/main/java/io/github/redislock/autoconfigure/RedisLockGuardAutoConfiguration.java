package io.github.redislock.autoconfigure;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Runs after {@link RedisLockAutoConfiguration}: when it did not install the lock advice (no Spring Data Redis,
 * no connection factory, or {@code redis-lock.enabled=false}), {@code @DistributedLock} methods must not run
 * unlocked in silence. See {@link UnlockedMethodsGuard}. With {@code redis-lock.enabled=false} there is no leader
 * election either: this instance acts as the only one, which leads ({@link LockingDisabledLeadership}).
 */
@AutoConfiguration(after = RedisLockAutoConfiguration.class)
// By name: the class may not even load when what it needs is missing.
@ConditionalOnMissingBean(type = "io.github.redislock.aop.DistributedLockAdvisor")
public final class RedisLockGuardAutoConfiguration {

    @Bean
    static UnlockedMethodsGuard redisLockUnlockedMethodsGuard(ConfigurableListableBeanFactory beanFactory,
            Environment environment) {
        boolean disabled = !Binder.get(environment).bind("redis-lock.enabled", Boolean.class).orElse(true);
        return new UnlockedMethodsGuard(beanFactory, disabled);
    }

    @Bean
    @ConditionalOnBooleanProperty(name = "redis-lock.enabled", havingValue = false)
    static LockingDisabledLeadership redisLockDisabledLeadership(ConfigurableListableBeanFactory beanFactory) {
        return new LockingDisabledLeadership(beanFactory);
    }
}
