package io.github.redislock.storekit;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent.Reason;
import io.github.redislock.storekit.Election.Candidate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader election over the store ({@link LeaderCandidate}, one per application): never two leaders at once, judged
 * by a {@link LeaderWitness} that samples every candidate's {@code term()} every few milliseconds; terms that
 * strictly increase; the leadership handed over when the leader yields or stops; and a leader whose lock the store
 * loses told so ({@code LOST}) within the documented bound, the next term larger.
 */
public interface LeaderChecks extends StoreChecks {

    /** Positive samples of the witness that make a stretch of about a second of one leader. */
    int SAMPLES = 400;

    /** Three candidates: one leads, the others never, and the witness sees one term. */
    @Test
    default void threeCandidatesElectExactlyOneLeader() {
        try (Election election = new Election("kit", applications().start(3, STEADY_LEASE), LONG_WAIT)) {
            Candidate leader = election.awaitLeader(LONG_WAIT);
            long term = leader.candidate().term().getAsLong();
            await().atMost(LONG_WAIT).until(() -> election.witness().samples() >= SAMPLES);
            assertThat(leader.candidate().isLeader()).isTrue();
            assertThat(leader.events()).singleElement().isInstanceOfSatisfying(LeadershipGrantedEvent.class,
                    (granted) -> assertThat(granted.getTerm()).isEqualTo(term));
            for (Candidate other : election.candidates()) {
                if (other != leader) {
                    assertThat(other.events()).as("events of %s", other).isEmpty();
                    assertThat(other.candidate().term()).as("term of %s", other).isEmpty();
                }
            }
            assertThat(election.witness().terms()).containsExactly(term);
            assertThat(election.witness().breaches()).isEmpty();
        }
    }

    /** The leader yields: revoked YIELDED, and another candidate leads with a larger term, never both at once. */
    @Test
    default void aYieldedLeadershipPassesToAnotherCandidateWithALargerTerm() {
        try (Election election = new Election("kit", applications().start(3, STEADY_LEASE), LONG_WAIT)) {
            Candidate first = election.awaitLeader(LONG_WAIT);
            long firstTerm = first.candidate().term().getAsLong();
            first.candidate().yieldLeadership();
            Candidate next = election.awaitLeader(LONG_WAIT, first);
            assertThat(next.candidate().term().getAsLong()).isGreaterThan(firstTerm);
            assertThat(first.revocations()).containsExactly(Reason.YIELDED);
            assertThat(first.candidate().isLeader()).isFalse();
            await().atMost(LONG_WAIT).until(() -> election.witness().terms().size() == 2);
            assertThat(election.witness().leaders()).containsExactly(first.toString(), next.toString());
            assertThat(election.witness().breaches()).isEmpty();
        }
    }

    /** The leader stops (its application closes): revoked STOPPED, and another candidate leads with a larger term. */
    @Test
    default void aStoppedLeaderHandsOverToAnotherCandidate() {
        try (Election election = new Election("kit", applications().start(3, STEADY_LEASE), LONG_WAIT)) {
            Candidate first = election.awaitLeader(LONG_WAIT);
            long firstTerm = first.candidate().term().getAsLong();
            first.candidate().stop();
            assertThat(first.revocations()).containsExactly(Reason.STOPPED);
            assertThat(first.candidate().isRunning()).isFalse();
            Candidate next = election.awaitLeader(LONG_WAIT, first);
            assertThat(next.candidate().term().getAsLong()).isGreaterThan(firstTerm);
            await().atMost(LONG_WAIT).until(() -> election.witness().terms().size() == 2);
            assertThat(election.witness().breaches()).isEmpty();
        }
    }

    /**
     * The store loses the leader's lock ({@link StoreFixture#loseLock}): the leader is revoked LOST within the
     * documented bound (the next renewal round of a leased store, the session's end for a session store, plus a
     * lease check), and the next term is larger. That term may overlap the lost one only while the lost leader had
     * not been told: the witness judges every other term.
     */
    @Test
    default void aLeaderWhoseLockTheStoreLosesIsRevokedAsLost() {
        StoreFixture fixture = applications().fixture();
        List<Application> applications = applications().start(3, SHORT_LEASE);
        try (Election election = new Election("kit", applications, LONG_WAIT)) {
            Candidate first = election.awaitLeader(LONG_WAIT);
            Application holder = applications.get(election.candidates().indexOf(first));
            LeaderCandidate candidate = first.candidate();
            long lostTerm = candidate.term().getAsLong();
            Duration bound = (fixture.leased() ? first.engine().renewalPeriod()
                    : fixture.sessionLossNotice()).plus(candidate.leaseCheck()).plus(LossChecks.ROUND_TRIP_ALLOWANCE);
            try (Pauses pauses = Pauses.measure()) {
                fixture.loseLock(holder.store(), holder.key(candidate.lockName()));
                long lostAt = System.nanoTime();
                await().atMost(LONG_WAIT).until(() -> first.revocations().contains(Reason.LOST));
                assertThat(Duration.ofNanos(System.nanoTime() - lostAt)).as("told after")
                    .isLessThanOrEqualTo(bound.plus(pauses.longest()));
            }
            assertThat(first.revocations()).containsExactly(Reason.LOST);
            long nextTerm = await().atMost(LONG_WAIT)
                .until(() -> election.leader().flatMap((leader) -> leader.candidate().term().stream().boxed().findAny())
                    .filter((term) -> term != lostTerm), Optional::isPresent)
                .orElseThrow();
            assertThat(nextTerm).as("the next term").isGreaterThan(lostTerm);
            await().atMost(LONG_WAIT).until(() -> election.witness().terms().size() >= 2);
            assertThat(election.witness().breaches(Set.of(lostTerm))).isEmpty();
        }
    }
}
