package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.LockValues;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.awaitility.Awaitility.await;

final class RedisLockClientTestSupport {

    /** Runs the delayed second release of an abandoned attempt, for protocols made here; one for the test run. */
    private static final ScheduledExecutorService PROTOCOL_SCHEDULER = ConnectionKind.newScheduler();

    private RedisLockClientTestSupport() {
    }

    /**
     * The scripts' Java side over the connection factory, apart from any store (with a random client id of its
     * own): for tests that call the scripts themselves.
     */
    static LockProtocol protocol(RedisConnectionFactory connectionFactory) {
        LockCommands commands = ConnectionKind.commandsFor(connectionFactory);
        HandoffChannel channel = new HandoffChannel(connectionFactory, commands,
                ConnectionKind.isCluster(connectionFactory), ConnectionKind.isLettuce(connectionFactory), "",
                LockTokens.randomId(), PROTOCOL_SCHEDULER, (key) -> {
                }, (keys) -> {
                });
        return new RedisLockProtocol(commands, channel, PROTOCOL_SCHEDULER);
    }

    /** Takes the keys with a fixed lease; {@code null} when they stayed taken for the whole wait. */
    static @Nullable LockHandle acquire(LockEngine client, List<String> keys, long waitNanos, long leaseMillis) {
        return acquire(client, keys, waitNanos, leaseMillis, false);
    }

    /** Takes the keys, renewed or with a fixed lease; {@code null} when they stayed taken for the whole wait. */
    static @Nullable LockHandle acquire(LockEngine client, List<String> keys, long waitNanos, long leaseMillis,
            boolean renew) {
        try {
            return client.acquire(LockRequest.of(keys, Duration.ofNanos(waitNanos),
                    renew ? null : Duration.ofMillis(leaseMillis)));
        }
        catch (LockNotAcquiredException ex) {
            return null;
        }
    }

    /** Polls Redis until the key no longer exists (expired or deleted); fails after 10 s. */
    static void awaitGone(RedisServer redis, String key) {
        await("key " + key + " to go away").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> !LockValues.held(redis.command("GET", key)));
    }
}
