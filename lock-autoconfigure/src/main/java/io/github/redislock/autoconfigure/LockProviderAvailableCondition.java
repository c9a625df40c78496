package io.github.redislock.autoconfigure;

import io.github.redislock.LockProvider;

import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Locks can be taken: there is a {@link RedisConnectionFactory} for the Redis engine, or the application defines
 * a {@link LockProvider} of its own (the in-process provider of {@code redis-lock-test}, say), which then needs
 * no Redis at all.
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
