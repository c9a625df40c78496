package io.github.redislock.torture;

import java.time.Duration;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RespConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** The relay that slows the workers' link to Redis: it passes a conversation on whole, and late when told to. */
class DelayingRelayTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void passesCommandsAndRepliesOnInOrder() {
        try (DelayingRelay relay = DelayingRelay.start(redis.server().port());
                RespConnection connection = RespConnection.open("127.0.0.1", relay.port(), Duration.ofSeconds(5))) {
            for (int i = 0; i < 100; i++) {
                assertThat(connection.command("INCR", "counter")).isEqualTo((long) i + 1);
            }
        }
    }

    @Test
    void holdsEachWayForAtLeastTheDelayAndStopsWhenToldTo() {
        try (DelayingRelay relay = DelayingRelay.start(redis.server().port());
                RespConnection connection = RespConnection.open("127.0.0.1", relay.port(), Duration.ofSeconds(5))) {
            relay.delay(150, 200);
            long start = System.nanoTime();
            assertThat(connection.command("PING")).isEqualTo("PONG");
            // The request and the reply were each held at least 150 ms.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));

            relay.delay(0, 0);
            assertThat(connection.command("SET", "key", "value")).isEqualTo("OK");
            assertThat(connection.command("GET", "key")).isEqualTo("value");
        }
    }
}
