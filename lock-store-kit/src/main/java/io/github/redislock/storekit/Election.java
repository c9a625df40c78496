package io.github.redislock.storekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.LeadershipRevokedEvent;

import static org.awaitility.Awaitility.await;

/**
 * One election of a check: a {@link LeaderCandidate} on each application's engine, every grant and revocation it
 * published, and a {@link LeaderWitness} sampling all of them. Closing stops the candidates that still run, then
 * the witness; the applications close after it.
 */
public final class Election implements AutoCloseable {

    private final List<Candidate> candidates = new ArrayList<>();

    private final LeaderWitness witness = new LeaderWitness();

    /**
     * Starts a candidate of the election {@code name} on each application.
     * @param yieldPause how long a yielding candidate waits before it stands again
     */
    public Election(String name, List<Application> applications, Duration yieldPause) {
        for (Application application : applications) {
            List<Object> events = new CopyOnWriteArrayList<>();
            LeaderCandidate candidate = new LeaderCandidate(name, application.engine(), events::add, yieldPause);
            Candidate entry = new Candidate(application, candidate, events);
            this.candidates.add(entry);
            this.witness.watch(application.name(), candidate);
            candidate.start();
        }
    }

    public List<Candidate> candidates() {
        return this.candidates;
    }

    public LeaderWitness witness() {
        return this.witness;
    }

    /** The candidate that leads now, if exactly one does. */
    public Optional<Candidate> leader() {
        List<Candidate> leading = this.candidates.stream().filter((c) -> c.candidate().isLeader()).toList();
        return (leading.size() == 1) ? Optional.of(leading.get(0)) : Optional.empty();
    }

    /** Waits up to {@code atMost} until exactly one candidate other than {@code not} leads; returns it. */
    public Candidate awaitLeader(Duration atMost, Candidate... not) {
        List<Candidate> excluded = List.of(not);
        return await().atMost(atMost)
            .until(() -> leader().filter((c) -> !excluded.contains(c)), Optional::isPresent)
            .orElseThrow();
    }

    @Override
    public void close() {
        for (Candidate candidate : this.candidates) {
            candidate.candidate().stop();
        }
        this.witness.close();
    }

    /** One candidate: its application, and every event it published, in order. */
    public record Candidate(Application application, LeaderCandidate candidate, List<Object> events) {

        /** The reasons of the revocations it published, in order. */
        public List<LeadershipRevokedEvent.Reason> revocations() {
            return this.events.stream().filter(LeadershipRevokedEvent.class::isInstance)
                .map((event) -> ((LeadershipRevokedEvent) event).getReason()).toList();
        }

        @Override
        public String toString() {
            return this.application.name();
        }
    }
}
