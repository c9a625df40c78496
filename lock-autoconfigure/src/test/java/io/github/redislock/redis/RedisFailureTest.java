package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redis down or frozen: the lock fails closed, fast, with our exception, and leaves nothing locked. */
class RedisFailureTest {

    /** Each test stops, freezes or restarts its server. */
    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.perTest();

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    @Test
    void unreachableRedisFailsWithLockExceptionNamingTheKey() {
        LettuceConnectionFactory connections = TestConnections.lettuce(redis.server(), COMMAND_TIMEOUT);
        try {
            RedisLockClient client = new RedisLockClient(connections, "");
            redis.server().stop();
            long start = System.nanoTime();
            assertThatThrownBy(() -> acquire(client, List.of("sku:1:lock"), 0, 30_000))
                    .isInstanceOf(LockException.class).hasMessageContaining("sku:1:lock")
                    .hasCauseInstanceOf(DataAccessException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(COMMAND_TIMEOUT.multipliedBy(4));
        }
        finally {
            connections.destroy();
        }
    }

    @Test
    void frozenRedisFailsWithinCommandTimeoutAndLockIsTakableAfterLease() {
        LettuceConnectionFactory connections = TestConnections.lettuce(redis.server(), COMMAND_TIMEOUT);
        try {
            RedisLockClient client = new RedisLockClient(connections, "");
            acquire(client, List.of("warm-up"), 0, 1_000).close();
            redis.server().pause();
            long start = System.nanoTime();
            try {
                assertThatThrownBy(() -> acquire(client, List.of("sku:2:lock"), 0, 200))
                        .isInstanceOf(LockException.class).hasMessageContaining("sku:2:lock")
                        .hasCauseInstanceOf(DataAccessException.class);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(took).isGreaterThanOrEqualTo(COMMAND_TIMEOUT.minusMillis(50))
                        .isLessThan(COMMAND_TIMEOUT.multipliedBy(4));
            }
            finally {
                redis.server().resume();
            }
            // The timed-out SET may still have run once Redis woke up; it carries the lease, so the key is
            // free again after at most that long.
            RedisLockClientTestSupport.awaitGone(redis.server(), "sku:2:lock");
            try (LockHandle handle = acquire(client, List.of("sku:2:lock"), 0, 30_000)) {
                assertThat(handle).isNotNull();
            }
        }
        finally {
            connections.destroy();
        }
    }

    @Test
    void clientCanBeCreatedWhileRedisIsDownAndWorksOnceItIsUp() {
        redis.server().stop();
        LettuceConnectionFactory connections = new LettuceConnectionFactory(
                new org.springframework.data.redis.connection.RedisStandaloneConfiguration(redis.server().host(),
                        redis.server().port()),
                org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.builder()
                    .commandTimeout(COMMAND_TIMEOUT).build());
        connections.afterPropertiesSet();
        connections.start();
        try {
            RedisLockClient client = new RedisLockClient(connections, "");
            assertThatThrownBy(() -> acquire(client, List.of("k"), 0, 1_000)).isInstanceOf(LockException.class)
                    .hasMessageContaining("'k'");
            redis.server().restart();
            try (LockHandle handle = acquire(client, List.of("k"), 0, 1_000)) {
                assertThat(handle).isNotNull();
            }
        }
        finally {
            connections.destroy();
        }
    }

    @Test
    void releaseOnUnreachableRedisThrowsLockExceptionAndDoesNotHang() {
        LettuceConnectionFactory connections = TestConnections.lettuce(redis.server(), COMMAND_TIMEOUT);
        try {
            RedisLockClient client = new RedisLockClient(connections, "");
            LockHandle handle = acquire(client, List.of("k"), 0, 30_000);
            redis.server().pause();
            try {
                assertThatThrownBy(handle::close).isInstanceOf(LockException.class).hasMessageContaining("'k'");
                assertThat(handle.isHeld()).isFalse();
            }
            finally {
                redis.server().resume();
            }
        }
        finally {
            connections.destroy();
        }
    }
}
