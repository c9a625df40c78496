package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redis down or frozen: the lock fails closed, fast, with our exception, and leaves nothing locked. */
class RedisFailureTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    @Test
    void unreachableRedisFailsWithLockExceptionNamingTheKey() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory connections = TestConnections.lettuce(redis, COMMAND_TIMEOUT);
            try {
                RedisLockClient client = new RedisLockClient(connections, "");
                redis.stop();
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
    }

    @Test
    void frozenRedisFailsWithinCommandTimeoutAndLockIsTakableAfterLease() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory connections = TestConnections.lettuce(redis, COMMAND_TIMEOUT);
            try {
                RedisLockClient client = new RedisLockClient(connections, "");
                acquire(client, List.of("warm-up"), 0, 1_000).close();
                redis.pause();
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
                    redis.resume();
                }
                // The timed-out SET may still have run once Redis woke up; it carries the lease, so the key is
                // free again after at most that long.
                RedisLockClientTestSupport.awaitGone(redis, "sku:2:lock");
                try (LockHandle handle = acquire(client, List.of("sku:2:lock"), 0, 30_000)) {
                    assertThat(handle).isNotNull();
                }
            }
            finally {
                connections.destroy();
            }
        }
    }

    @Test
    void clientCanBeCreatedWhileRedisIsDownAndWorksOnceItIsUp() {
        try (RedisServer redis = RedisServer.start()) {
            redis.stop();
            LettuceConnectionFactory connections = new LettuceConnectionFactory(
                    new org.springframework.data.redis.connection.RedisStandaloneConfiguration(redis.host(),
                            redis.port()),
                    org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.builder()
                        .commandTimeout(COMMAND_TIMEOUT).build());
            connections.afterPropertiesSet();
            connections.start();
            try {
                RedisLockClient client = new RedisLockClient(connections, "");
                assertThatThrownBy(() -> acquire(client, List.of("k"), 0, 1_000)).isInstanceOf(LockException.class)
                        .hasMessageContaining("'k'");
                redis.restart();
                try (LockHandle handle = acquire(client, List.of("k"), 0, 1_000)) {
                    assertThat(handle).isNotNull();
                }
            }
            finally {
                connections.destroy();
            }
        }
    }

    @Test
    void releaseOnUnreachableRedisThrowsLockExceptionAndDoesNotHang() {
        try (RedisServer redis = RedisServer.start()) {
            LettuceConnectionFactory connections = TestConnections.lettuce(redis, COMMAND_TIMEOUT);
            try {
                RedisLockClient client = new RedisLockClient(connections, "");
                LockHandle handle = acquire(client, List.of("k"), 0, 30_000);
                redis.pause();
                try {
                    assertThatThrownBy(handle::close).isInstanceOf(LockException.class).hasMessageContaining("'k'");
                    assertThat(handle.isHeld()).isFalse();
                }
                finally {
                    redis.resume();
                }
            }
            finally {
                connections.destroy();
            }
        }
    }
}
