package io.github.redislock.redis;

import java.time.Duration;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.leader.LeadershipRevokedEvent;
import io.github.redislock.storekit.Election;
import io.github.redislock.storekit.Election.Candidate;
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
        try (RedisEngines engines = new RedisEngines(redis.server(), LEASE, 2);
                Election election = new Election("nightly", engines.byName(), Duration.ofSeconds(1))) {
            Candidate first = election.awaitLeader(LONG_WAIT);
            long lostTerm = first.candidate().term().getAsLong();
            try (Pauses pauses = Pauses.measure()) {
                redis.server().restart();
                long restartedAt = System.nanoTime();
                await().atMost(LONG_WAIT).until(() -> !first.revocations().isEmpty());
                assertThat(Duration.ofNanos(System.nanoTime() - restartedAt)).as("told after")
                    .isLessThanOrEqualTo(LEASE.plus(first.candidate().leaseCheck()).plus(LossChecks.ROUND_TRIP_ALLOWANCE)
                        .plus(pauses.longest()));
            }
            assertThat(first.revocations()).first().isEqualTo(LeadershipRevokedEvent.Reason.LOST);
            long nextTerm = await().atMost(LONG_WAIT)
                .until(() -> election.leader().map((leader) -> leader.candidate().term().orElse(lostTerm)),
                        (term) -> term.isPresent() && term.get() != lostTerm)
                .orElseThrow();
            assertThat(nextTerm).isGreaterThan(lostTerm);
            await().atMost(LONG_WAIT).until(() -> election.witness().terms().size() >= 2);
            assertThat(election.witness().breaches(Set.of(lostTerm))).isEmpty();
        }
    }
}
