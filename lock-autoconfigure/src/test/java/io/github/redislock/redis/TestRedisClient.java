package io.github.redislock.redis;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.LockTokens;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A single-Redis engine for the tests of this package, built with what the tests must know or tune of its store:
 * the store's client id (this application's id in queues and hand-offs, which tests use to forge hand-off
 * messages, plant queue entries and tell values apart), drawn here, and how long a first waiter goes without a
 * hand-off message before it looks at Redis. Production classes have no accessor for either: the test knows them
 * because it made them. The engine's owner id is {@link #ownerId()}, as for any engine.
 */
final class TestRedisClient extends LockEngine {

    private final RedisLockStore store;

    private final String clientId;

    private TestRedisClient(RedisLockStore store, String clientId, Duration renewedLease,
            LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler) {
        super(store, renewedLease, lossListener, scheduler);
        this.store = store;
        this.clientId = clientId;
    }

    /** A client as {@code new RedisLockClient(...)} builds it, with the default timed looks of a first waiter. */
    static TestRedisClient of(RedisConnectionFactory connectionFactory, String keyPrefix, Duration renewedLease,
            LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler) {
        return of(connectionFactory, keyPrefix, renewedLease, lossListener, scheduler,
                TimedLooks.DEFAULT_MAX_UNNOTIFIED_WAIT);
    }

    /**
     * @param maxUnnotifiedWait how long a first waiter goes without a hand-off message before it looks at Redis
     * anyway (a minute: waiting is then by messages and the holder's lease only)
     */
    static TestRedisClient of(RedisConnectionFactory connectionFactory, String keyPrefix, Duration renewedLease,
            LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler, Duration maxUnnotifiedWait) {
        String clientId = LockTokens.randomId();
        RedisLockStore store = new RedisLockStore(connectionFactory, keyPrefix, scheduler, 0, Duration.ZERO, clientId,
                maxUnnotifiedWait);
        return new TestRedisClient(store, clientId, renewedLease, lossListener, scheduler);
    }

    /** This application's id in queues and hand-offs. */
    String clientId() {
        return this.clientId;
    }

    /** The store, for its public settings and lifecycle. */
    RedisLockStore store() {
        return this.store;
    }
}
