package io.github.redislock.autoconfigure;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockProvider;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The application's one lock engine, whatever the store: a {@link LockEngine} over the one {@link LockStore} bean,
 * which a store's auto-configuration defines (the single Redis, Redlock, the ZooKeeper module's, or lock-test's
 * in-process store, each ordered before this one) or the application does. The engine has
 * {@code redis-lock.lease-time} as its renewed lease, publishes a {@link LockLostEvent} for each lock it finds lost
 * (the engine is the event's source), and names this process in the store's instance registry as the
 * {@link InstanceInfo} bean describes it (this one's, from {@code spring.application.name}, unless the application
 * defines its own). Backs off when the application defines its own {@link LockProvider} (the store
 * auto-configurations back off then too), which the template and the advice then use; runs before
 * {@link RedisLockAutoConfiguration}, which puts them on the engine. The endpoint and the meters bind to the engine.
 */
@AutoConfiguration(before = RedisLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class LockEngineAutoConfiguration {

    private static final Log logger = LogFactory.getLog(LockEngineAutoConfiguration.class);

    /** This process in the instance registry, as {@code spring.application.name} names it. */
    @Bean
    @ConditionalOnMissingBean
    static InstanceInfo redisLockInstance(Environment environment) {
        return InstanceInfo.current(environment.getProperty("spring.application.name", "application"));
    }

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    @ConditionalOnSingleCandidate(LockStore.class)
    LockEngine lockEngine(LockStore store, RedisLockProperties properties, ApplicationEventPublisher publisher,
            InstanceInfo instance) {
        LockEngine engine = LockLostEventPublisher.engine(store, properties.getLeaseTime(), publisher);
        // The holder view of every application names this one through its entry in the store's registry.
        engine.publishInstance(instance);
        logger.info("redis-lock: locks are kept in " + engine.describe());
        return engine;
    }
}
