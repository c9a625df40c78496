package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A server frozen from outside (SIGSTOP) is a silence the meter measures, and only within the interval asked. */
@LineIndependent
class SilenceMeterTest {

    private static final Duration FREEZE = Duration.ofMillis(400);

    /** What the meter may take, on a loaded machine, to read an answer given just before the freeze. */
    private static final Duration READ_LAST_ANSWER = Duration.ofMillis(100);

    @Test
    void aFrozenServerIsMeasuredAsASilence() {
        try (RedisServer server = RedisServer.start()) {
            SilenceMeter silences = SilenceMeter.start(server);
            long from;
            long frozen;
            server.pause();
            try {
                from = System.nanoTime();
                // The freeze's length is the fault itself, not a wait for something to happen.
                LockSupport.parkNanos(FREEZE.toNanos());
                frozen = System.nanoTime() - from;
            }
            finally {
                server.resume();
            }
            // Closing waits for the PING under way, answered after the resume: the silence is recorded by then.
            silences.close();
            Duration part = Duration.ofMillis(100);
            assertThat(silences.longestWithin(from - FREEZE.toNanos(), System.nanoTime()))
                .as("silent from its last answer before the freeze until after it")
                .isGreaterThanOrEqualTo(Duration.ofNanos(frozen).minus(READ_LAST_ANSWER));
            // An interval inside the freeze and after the last answer was read (that read may come just after
            // `from`: beside stress-ng it came 1.3 ms after): the meter counts exactly the interval.
            long inside = from + READ_LAST_ANSWER.toNanos();
            assertThat(silences.longestWithin(inside, inside + part.toNanos())).as("only the part within the interval")
                .isEqualTo(part);
        }
    }
}
