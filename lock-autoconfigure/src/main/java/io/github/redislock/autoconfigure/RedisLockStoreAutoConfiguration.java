package io.github.redislock.autoconfigure;

import io.github.redislock.LockProvider;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.RedisLockStore;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The single-Redis store ({@link RedisLockStore}) on the application's own Redis connection factory (the one
 * {@code redis-lock.connection-factory} names, else the primary or only one; several without a choice fail the
 * start-up), with the local hand-over limits, replica acknowledgement and instance TTL of {@code redis-lock.*}.
 * The default store: defined only when no other is, neither by an auto-configuration ordered before this one
 * (lock-test's in-process store, the ZooKeeper module's, Redlock's) nor by the application (a {@link LockStore} or
 * a {@link LockProvider} of its own). {@link LockEngineAutoConfiguration} builds the engine over it.
 */
// Boot's Redis auto-configuration by both of its names: Boot 4 moved it to a module (and package) of its own.
@AutoConfiguration(before = LockEngineAutoConfiguration.class,
        afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" })
@ConditionalOnClass(StringRedisTemplate.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedisLockStoreAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean({ LockProvider.class, LockStore.class })
    @ConditionalOnBean(RedisConnectionFactory.class)
    RedisLockStore redisLockStore(ListableBeanFactory beanFactory, RedisLockProperties properties) {
        RedisConnectionFactory connectionFactory = ConnectionFactoryChoice.choose(beanFactory,
                properties.getConnectionFactory());
        RedisLockStore store;
        try {
            store = new RedisLockStore(connectionFactory, properties.getKeyPrefix(), null,
                    properties.getReplicasToAcknowledge(), properties.getReplicationTimeout());
        }
        catch (IllegalArgumentException ex) {
            throw new LockConfigurationException("redis-lock.replicas-to-acknowledge is "
                    + properties.getReplicasToAcknowledge() + ": " + ex.getMessage() + ".",
                    "Set redis-lock.replicas-to-acknowledge to 0 for a Redis Cluster (each master's replicas "
                            + "would need their own WAIT), or lock on a standalone or Sentinel connection.");
        }
        store.setLocalHandoverLimit(properties.getLocalHandoverLimit());
        store.setLocalHandoverTimeLimit(properties.getLocalHandoverTimeLimit());
        store.setLocalHandoverRejoin(properties.isLocalHandoverRejoin());
        store.setInstanceTtl(properties.getInstanceTtl());
        store.setClockDrift(properties.getClockDrift());
        return store;
    }
}
