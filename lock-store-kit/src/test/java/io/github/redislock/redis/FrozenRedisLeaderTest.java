package io.github.redislock.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.storekit.CandidateProcess;
import io.github.redislock.storekit.Election;
import io.github.redislock.storekit.Election.Candidate;
import io.github.redislock.storekit.LeaderWitness;
import io.github.redislock.testsupport.ProcessSignals;
import io.github.redislock.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A leader in a JVM of its own is frozen (SIGSTOP) past its lease on one Redis: another candidate is granted a
 * larger term once the lease has run out in Redis, the frozen one says LOST when it thaws, and the witness, which
 * samples every candidate's {@code term()} every few milliseconds (the frozen one from inside its JVM, on the
 * machine's clock), never finds two leaders at once.
 */
class FrozenRedisLeaderTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final Duration LEASE = Duration.ofMillis(1500);

    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    @Test
    void aFrozenLeaderIsSucceededAndSaysLostWhenItThawsAndNeverLeadsAlongsideItsSuccessor() throws Exception {
        LeaderWitness witness = new LeaderWitness();
        try (CandidateProcess frozen = CandidateProcess.start("frozen", witness, RedisCandidateMain.class,
                redis.server().host(), Integer.toString(redis.server().port()), "kit:", "nightly",
                Long.toString(LEASE.toMillis()))) {
            await().atMost(LONG_WAIT).until(() -> !frozen.events().isEmpty());
            long term = Long.parseLong(frozen.events().get(0).split(" ")[1]);
            try (RedisEngines engines = new RedisEngines(redis.server(), LEASE, 2);
                    Election others = new Election("nightly", engines.byName(), Duration.ofSeconds(1), witness)) {
                Candidate successor = ProcessSignals.frozenWhile(frozen.process(), () -> others.awaitLeader(LONG_WAIT));
                await().atMost(LONG_WAIT).until(() -> frozen.events().size() >= 2);
                assertThat(frozen.events().subList(0, 2)).containsExactly("GRANTED " + term,
                        "REVOKED " + term + " LOST");
                assertThat(successor.candidate().term().getAsLong()).isGreaterThan(term);
                await().atMost(LONG_WAIT).until(() -> witness.terms().size() >= 2);
            }
        }
        finally {
            witness.close();
        }
        assertThat(witness.terms()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(witness.breaches()).isEmpty();
    }
}
