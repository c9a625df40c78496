package io.github.redislock.autoconfigure;

import java.util.List;

import io.github.redislock.LockProvider;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redlock.RedlockStore;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Redlock instead of the one Redis, when {@code redis-lock.redlock.nodes} lists masters: a {@link RedlockStore},
 * on connections built like the application's own, is the store {@link LockEngineAutoConfiguration} builds the
 * engine over (so the single-Redis store backs off), with {@code redis-lock.instance-ttl}. Backs off as a whole, as
 * the other stores do, when the application defines a {@link LockStore} or a {@link LockProvider} of its own, or an
 * auto-configuration ordered before this one (ZooKeeper, lock-test's in-process locks) defined its store: no
 * connection is then made to nodes whose locks nobody takes.
 */
@AutoConfiguration(before = { RedisLockStoreAutoConfiguration.class, LockEngineAutoConfiguration.class },
        afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" })
@ConditionalOnClass(StringRedisTemplate.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@Conditional(RedlockAutoConfiguration.OnRedlockNodes.class)
@ConditionalOnMissingBean({ LockProvider.class, LockStore.class })
@EnableConfigurationProperties(RedisLockProperties.class)
public final class RedlockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(RedisConnectionFactory.class)
    RedlockConnections redlockConnections(ListableBeanFactory beanFactory, RedisLockProperties properties) {
        if (properties.getReplicasToAcknowledge() > 0) {
            throw new LockConfigurationException("redis-lock.replicas-to-acknowledge is "
                    + properties.getReplicasToAcknowledge() + " while redis-lock.redlock.nodes is set; Redlock nodes "
                    + "are independent masters, whose replicas it does not wait for.",
                    "Set redis-lock.replicas-to-acknowledge to 0 with Redlock, or remove redis-lock.redlock.nodes.");
        }
        RedisConnectionFactory application = ConnectionFactoryChoice.choose(beanFactory,
                properties.getConnectionFactory());
        return RedlockConnections.of(properties.getRedlock().getNodes(), application);
    }

    @Bean
    @ConditionalOnBean(RedisConnectionFactory.class)
    RedlockStore redlockStore(RedlockConnections connections, RedisLockProperties properties) {
        RedlockStore store = new RedlockStore(connections.factories(), properties.getKeyPrefix());
        store.setInstanceTtl(properties.getInstanceTtl());
        return store;
    }

    /** Matches when {@code redis-lock.redlock.nodes} lists at least one node (as a list or comma-separated). */
    static final class OnRedlockNodes extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            List<String> nodes = Binder.get(context.getEnvironment())
                .bind("redis-lock.redlock.nodes", Bindable.listOf(String.class))
                .orElse(List.of());
            return nodes.isEmpty() ? ConditionOutcome.noMatch("redis-lock.redlock.nodes is empty")
                    : ConditionOutcome.match("redis-lock.redlock.nodes lists " + nodes.size() + " node(s)");
        }
    }
}
