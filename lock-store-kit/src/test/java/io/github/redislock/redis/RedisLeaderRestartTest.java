package io.github.redislock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.LeadershipRevokedEvent;
import io.github.redislock.storekit.LeaderWitness;
import io.github.redislock.storekit.LossChecks;
import io.github.redislock.storekit.Pauses;
import io.github.redislock.testsupport.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis restarts empty under a leader: the leadership it forgot is revoked LOST within one lease, and the next term
 * is still larger than every term before, because a fencing token on one Redis is the server's clock in
 * microseconds (acquire.lua), which an empty restart does not set back.
 */
class RedisLeaderRestartTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.perTest();

    private static final Duration LEASE = Duration.ofMillis(1500);

    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    @Test
    void aLeadershipTheRestartForgotIsRevokedLostWithinALeaseAndTheNextTermIsLarger() {
        try (LeaderWitness witness = new LeaderWitness();
                RedisCandidates candidates = new RedisCandidates(redis.server(), "nightly", LEASE, 2, witness)) {
            LeaderCandidate first = await().atMost(LONG_WAIT).until(candidates::leader, Optional::isPresent).orElseThrow();
            long lostTerm = first.term().getAsLong();
            try (Pauses pauses = Pauses.measure()) {
                redis.server().restart();
                long restartedAt = System.nanoTime();
                await().atMost(LONG_WAIT).until(() -> candidates.eventsOf(first).size() >= 2);
                assertThat(Duration.ofNanos(System.nanoTime() - restartedAt)).as("told after")
                    .isLessThanOrEqualTo(LEASE.plus(first.leaseCheck()).plus(LossChecks.ROUND_TRIP_ALLOWANCE)
                        .plus(pauses.longest()));
            }
            assertThat(candidates.eventsOf(first).get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class,
                    (revoked) -> assertThat(revoked.getReason()).isEqualTo(LeadershipRevokedEvent.Reason.LOST));
            long nextTerm = await().atMost(LONG_WAIT)
                .until(() -> candidates.leader().map((leader) -> leader.term().orElse(lostTerm)),
                        (term) -> term.isPresent() && term.get() != lostTerm)
                .orElseThrow();
            assertThat(nextTerm).isGreaterThan(lostTerm);
            await().atMost(LONG_WAIT).until(() -> witness.terms().size() >= 2);
            assertThat(witness.breaches(Set.of(lostTerm))).isEmpty();
        }
    }
}
