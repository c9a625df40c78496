package io.github.redislock.autoconfigure;

import io.github.redislock.LockProvider;

import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Locks can be taken: there is a {@link LockProvider} (the engine {@link LockEngineAutoConfiguration} built over a
 * store, or the application's own, which then needs no Redis at all), or a {@link RedisConnectionFactory} for the
 * single-Redis store.
 */
final class LockProviderAvailableCondition extends AnyNestedCondition {

    LockProviderAvailableCondition() {
        super(ConfigurationPhase.REGISTER_BEAN);
    }

    @ConditionalOnBean(RedisConnectionFactory.class)
    static class RedisConnection {

    }

    @ConditionalOnBean(LockProvider.class)
    static class OwnLockProvider {

    }
}
