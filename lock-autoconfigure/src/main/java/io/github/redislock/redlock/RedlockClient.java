package io.github.redislock.redlock;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Redlock in one constructor call: the store-neutral {@link LockEngine} over a {@link RedlockStore}, and nothing
 * more. For programmatic use without Spring Boot; the auto-configuration builds the engine over its
 * {@link RedlockStore} bean instead. What Redlock guarantees, and its limits, is in the package documentation.
 */
public final class RedlockClient extends LockEngine {

    /**
     * @param nodes one connection factory per independent master, at least 3
     * @param keyPrefix text put in front of every key, may be empty
     * @param renewedLease the lease of renewed locks, renewed every third of it
     * @param lossListener told when a held lock is found lost
     * @throws IllegalArgumentException with fewer than 3 nodes
     */
    public RedlockClient(List<? extends RedisConnectionFactory> nodes, @Nullable String keyPrefix,
            Duration renewedLease, LockLossListener lossListener) {
        super(new RedlockStore(nodes, keyPrefix), renewedLease, lossListener);
    }
}
