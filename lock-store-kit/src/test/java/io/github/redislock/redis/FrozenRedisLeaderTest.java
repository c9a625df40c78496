package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.storekit.CandidateProcess;
import io.github.redislock.storekit.LeaderWitness;
import io.github.redislock.testsupport.ProcessSignals;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        List<LockEngine> engines = new ArrayList<>();
        List<LeaderCandidate> others = new ArrayList<>();
        try (CandidateProcess frozen = CandidateProcess.start("frozen", witness, RedisCandidateMain.class,
                redis.server().host(), Integer.toString(redis.server().port()), "kit:", "nightly",
                Long.toString(LEASE.toMillis()))) {
            await().atMost(LONG_WAIT).until(() -> !frozen.events().isEmpty());
            String granted = frozen.events().get(0);
            long term = Long.parseLong(granted.split(" ")[1]);
            for (int i = 0; i < 2; i++) {
                LettuceConnectionFactory factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
                factories.add(factory);
                LockEngine engine = new RedisLockClient(factory, "kit:", LEASE, LockLossListener.NONE, null);
                engines.add(engine);
                LeaderCandidate candidate = new LeaderCandidate("nightly", engine, (event) -> {
                });
                others.add(candidate);
                witness.watch("other-" + i, candidate);
                candidate.start();
            }
            ProcessSignals.send(frozen.process(), "STOP");
            LeaderCandidate successor;
            try {
                successor = await().atMost(LONG_WAIT)
                    .until(() -> others.stream().filter(LeaderCandidate::isLeader).findFirst(), (found) -> found.isPresent())
                    .orElseThrow();
            }
            finally {
                ProcessSignals.send(frozen.process(), "CONT");
            }
            await().atMost(LONG_WAIT).until(() -> frozen.events().size() >= 2);
            assertThat(frozen.events().subList(0, 2)).containsExactly("GRANTED " + term, "REVOKED " + term + " LOST");
            assertThat(successor.term().getAsLong()).isGreaterThan(term);
            await().atMost(LONG_WAIT).until(() -> witness.terms().size() >= 2);
        }
        finally {
            others.forEach(LeaderCandidate::stop);
            engines.forEach(LockEngine::close);
            factories.forEach(LettuceConnectionFactory::destroy);
            witness.close();
        }
        assertThat(witness.terms()).hasSizeGreaterThanOrEqualTo(2);
        assertThat(witness.breaches()).isEmpty();
    }
}
