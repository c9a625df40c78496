package io.github.redislock.redis;

import java.time.Duration;

import io.github.redislock.LockException;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A key given directly (the template API) with a control character would forge log lines wherever the key is
 * logged: it is refused before anything logs it or calls Redis, and the refusal does not echo it.
 */
class UntrustedKeyTextTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private static LettuceConnectionFactory connections;

    private static RedisLockClient client;

    @BeforeAll
    static void startRedis() {
        connections = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        client = new RedisLockClient(connections, "");
    }

    @AfterAll
    static void stopRedis() {
        client.close();
        connections.destroy();
    }

    @Test
    void aKeyWithALineBreakIsRefusedAndNamedWithoutIt() {
        assertThatThrownBy(() -> client.acquire(LockRequest.of("order:1\n2026-11-25 ERROR forged", Duration.ZERO,
                Duration.ofSeconds(1))).close())
            .isInstanceOf(LockException.class)
            .hasMessageContaining("control character (U+000A at index 7)")
            .satisfies((ex) -> assertThat(ex.getMessage()).doesNotContain("\n"));
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
    }
}
