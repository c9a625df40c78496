package io.github.redislock.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockProvider;
import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.aop.LockOperationSource;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.observation.LockObservationConvention;
import io.github.redislock.tx.LockVerifyingTransactionListener;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Auto-configuration for redis-lock's front end: the {@link DistributedLockTemplate} (observed when the
 * application has an {@code ObservationRegistry}) and the advisor behind {@code @DistributedLock}, on the
 * application's {@link LockProvider}: the {@link LockEngine} that {@link LockEngineAutoConfiguration} builds over
 * the one store (the single Redis on the application's own connection factory by default, Redlock, ZooKeeper,
 * in-process locks), or a provider the application defines itself, with or without a
 * {@link RedisConnectionFactory}. Backs off when there is neither a {@link RedisConnectionFactory} nor a
 * {@link LockProvider}, or with {@code redis-lock.enabled=false}; {@link RedisLockGuardAutoConfiguration} then
 * makes sure no {@code @DistributedLock} method runs unlocked in silence. Every bean can be replaced by declaring
 * one of the same type.
 */
// Boot's Redis auto-configuration by both of its names: Boot 4 moved it to a module (and package) of its own.
@AutoConfiguration(after = LockEngineAutoConfiguration.class,
        afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
@Import(LockProxyRegistrar.class)
public final class RedisLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Conditional(LockProviderAvailableCondition.class)
    DistributedLockTemplate distributedLockTemplate(LockProvider lockProvider, RedisLockProperties properties,
            ObjectProvider<ObservationRegistry> observationRegistry,
            ObjectProvider<LockObservationConvention> observationConventions) {
        DistributedLockTemplate template = new DistributedLockTemplate(lockProvider, properties.getWaitTime(),
                properties.getOnLeaseLost());
        // Observed only when the application has a registry (Spring Boot makes one with Actuator or its Micrometer
        // modules); otherwise the template never creates an observation.
        observationRegistry.ifUnique((registry) -> {
            template.setObservationConventions(observationConventions.orderedStream().toList());
            template.setObservationRegistry(registry);
        });
        return template;
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional(LockProviderAvailableCondition.class)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockOperationSource lockOperationSource(BeanFactory beanFactory, Environment environment,
            ObjectProvider<RedisLockProperties> properties) {
        // Infrastructure beans are created while post-processors are still being registered: read the
        // properties only when first needed, so they are bound and validated like any other bean.
        return new LockOperationSource(beanFactory, environment, () -> properties.getObject().getWaitTime(),
                () -> properties.getObject().getLeaseTime(), () -> properties.getObject().getMaxKeysPerCall());
    }

    @Bean
    @ConditionalOnMissingBean
    @Conditional(LockProviderAvailableCondition.class)
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DistributedLockAdvisor distributedLockAdvisor(LockOperationSource lockOperationSource,
            ObjectProvider<DistributedLockTemplate> distributedLockTemplate, BeanFactory beanFactory,
            Environment environment) {
        // The order is needed as soon as advisors are sorted, so it is read straight from the environment.
        int order = Binder.get(environment).bind("redis-lock.order", Integer.class)
                .orElse(RedisLockProperties.DEFAULT_ORDER);
        return new DistributedLockAdvisor(lockOperationSource, distributedLockTemplate::getObject, beanFactory, order);
    }

    @Bean
    @ConditionalOnBean(LockOperationSource.class)
    static SharedLocksGuard redisLockSharedLocksGuard(LockOperationSource lockOperationSource,
            ObjectProvider<LockEngine> lockEngine) {
        return new SharedLocksGuard(lockOperationSource, lockEngine);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(TransactionExecutionListener.class)
    static class TransactionConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @Conditional(LockProviderAvailableCondition.class)
        LockVerifyingTransactionListener lockVerifyingTransactionListener(RedisLockProperties properties) {
            return new LockVerifyingTransactionListener(properties.isVerifyBeforeCommit());
        }
    }
}
