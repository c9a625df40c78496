package io.github.redislock.autoconfigure;

import io.micrometer.observation.ObservationRegistry;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockProvider;
import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.aop.LockOperationSource;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.observation.LockObservationConvention;
import io.github.redislock.tx.LockVerifyingTransactionListener;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.TransactionExecutionListener;

/**
 * Auto-configuration for redis-lock: the lock engine on the application's own Redis connection factory (the
 * one {@code redis-lock.connection-factory} names, else the primary or only one; several without a choice
 * fail the start-up), the {@link DistributedLockTemplate} (observed when the application has an
 * {@code ObservationRegistry}), and the advisor behind {@code @DistributedLock}. An application that defines
 * its own {@link LockProvider} bean gets the template and the advice on that provider, with or without a
 * {@link RedisConnectionFactory}.
 * Without Spring Data Redis only the Redis engine is left out: another store's {@link LockProvider} (the
 * ZooKeeper module's) gets the template and the advice. Backs off when there is neither a
 * {@link RedisConnectionFactory} nor a {@link LockProvider}, or with {@code redis-lock.enabled=false}; {@link RedisLockGuardAutoConfiguration} then makes sure no
 * {@code @DistributedLock} method runs unlocked in silence. Every bean can be replaced by declaring one of the
 * same type.
 */
// Boot's Redis auto-configuration by both of its names: Boot 4 moved it to a module (and package) of its own.
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
@Import(LockProxyRegistrar.class)
public final class RedisLockAutoConfiguration {

    @Bean
    /** This process in the instance registry, as {@code spring.application.name} names it. */
    static InstanceInfo instance(Environment environment) {
        return InstanceInfo.current(environment.getProperty("spring.application.name", "application"));
    }

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

    /**
     * The single-Redis engine, only with Spring Data Redis on the class path: the rest serves any store's
     * provider (the ZooKeeper module's) without it. A nested class, so that nothing of it loads without Redis.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(StringRedisTemplate.class)
    static class RedisEngineConfiguration {

        @Bean
        @ConditionalOnMissingBean(LockProvider.class)
        @ConditionalOnBean(RedisConnectionFactory.class)
        RedisLockClient redisLockClient(ListableBeanFactory beanFactory, RedisLockProperties properties,
                ApplicationEventPublisher publisher, Environment environment) {
            RedisConnectionFactory connectionFactory = ConnectionFactoryChoice.choose(beanFactory,
                    properties.getConnectionFactory());
            RedisLockClient client;
            try {
                client = new RedisLockClient(connectionFactory, properties.getKeyPrefix(), properties.getLeaseTime(),
                        new LockLostEventPublisher(publisher), null, properties.getReplicasToAcknowledge(),
                        properties.getReplicationTimeout());
            }
            catch (IllegalArgumentException ex) {
                throw new LockConfigurationException("redis-lock.replicas-to-acknowledge is "
                        + properties.getReplicasToAcknowledge() + ": " + ex.getMessage() + ".",
                        "Set redis-lock.replicas-to-acknowledge to 0 for a Redis Cluster (each master's replicas "
                                + "would need their own WAIT), or lock on a standalone or Sentinel connection.");
            }
            client.setLocalHandoverLimit(properties.getLocalHandoverLimit());
            client.setLocalHandoverTimeLimit(properties.getLocalHandoverTimeLimit());
            client.publishInstance(instance(environment), properties.getInstanceTtl());
            return client;
        }
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
