package io.github.redislock.redis;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.support.HolderView;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Locks on one Redis (standalone, Sentinel or Cluster), on the application's own Redis connection factory, in
 * one constructor call: the store-neutral {@link LockEngine} over a {@link RedisLockStore}, and nothing more.
 * For programmatic use without Spring Boot; the auto-configuration builds the engine over its
 * {@link RedisLockStore} bean instead. What the locks guarantee is in the Javadoc of {@link LockEngine} (reentrancy,
 * multi-key, renewal, loss) and of {@link RedisLockStore} (the Redis side); the store's settings (local
 * hand-over limits, its lifecycle as a bean) are on the store: build the store and
 * {@code new LockEngine(store, ...)} to use them.
 */
public final class RedisLockClient extends LockEngine {

    /** A client with a 30 s renewed lease and no loss listener. */
    public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix) {
        this(connectionFactory, keyPrefix, Duration.ofSeconds(30), LockLossListener.NONE, null);
    }

    /**
     * @param connectionFactory the application's Redis connection factory (no client of our own is made)
     * @param keyPrefix text put in front of every key, may be empty
     * @param renewedLease the lease of locks kept alive by renewal; they are renewed every third of it
     * @param lossListener told when a held lock is found lost
     * @param scheduler runs renewals and the store's housekeeping; {@code null} for daemon threads of their own
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            Duration renewedLease, LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler) {
        this(connectionFactory, keyPrefix, renewedLease, lossListener, scheduler, 0, Duration.ZERO);
    }

    /**
     * A client whose acquisitions count only once {@code WAIT} confirms them on the given number of replicas (see
     * {@link RedisLockStore#RedisLockStore(RedisConnectionFactory, String, ScheduledExecutorService, int, Duration)}).
     * @throws IllegalArgumentException when replicas are asked for on a Redis Cluster connection
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            Duration renewedLease, LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler,
            int replicasToAcknowledge, Duration replicationTimeout) {
        super(new RedisLockStore(connectionFactory, keyPrefix, scheduler, replicasToAcknowledge, replicationTimeout),
                renewedLease, lossListener, scheduler);
    }
}
