package io.github.redislock.torture;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A redis-server on a {@link FakeClock} (the one {@link FakedRedis} chose: the harness's own where it starts under
 * libfaketime, else the bundled one): its clock steps ahead while it runs, and back.
 */
class FakeClockTest {

    @TempDir
    Path directory;

    @BeforeEach
    void needsLibfaketime() {
        assumeTrue(FakedRedis.unavailable().isEmpty(), () -> "skipped: " + FakedRedis.unavailable().orElseThrow());
    }

    @Test
    void stepsTheServersWallClockWhileItRuns() {
        // The server is started by hand: its environment comes from the clock this test makes first.
        try (FakeClock clock = FakeClock.create(this.directory);
                RedisServer redis = RedisServer.builder().binary(FakedRedis.binary()).environment(clock.environment())
                    .start()) {
            assertThat(aheadSeconds(redis)).isCloseTo(0, within(2L));

            clock.offset(Duration.ofSeconds(100));
            // libfaketime re-reads the offset once a second.
            await().atMost(FakeClock.LAG.multipliedBy(3))
                .untilAsserted(() -> assertThat(aheadSeconds(redis)).isCloseTo(100, within(2L)));

            clock.offset(Duration.ZERO);
            await().atMost(FakeClock.LAG.multipliedBy(3))
                .untilAsserted(() -> assertThat(aheadSeconds(redis)).isCloseTo(0, within(2L)));
        }
    }

    @Test
    void removesItsFileWhenClosed() {
        FakeClock clock = FakeClock.create(this.directory);
        clock.close();

        assertThat(this.directory.toFile().list()).isEmpty();
        assertThat(Files.exists(this.directory)).isTrue();
    }

    private static long aheadSeconds(RedisServer redis) {
        List<?> time = (List<?>) redis.command("TIME");
        return Long.parseLong((String) time.get(0)) - System.currentTimeMillis() / 1000;
    }
}
