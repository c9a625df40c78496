package io.github.redislock.storekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockEngine;

import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.LeadershipRevokedEvent;

import static org.awaitility.Awaitility.await;

/**
 * One election of a check: a {@link LeaderCandidate} on each application's engine (or on engines a test made),
 * every grant and revocation it published, and a {@link LeaderWitness} sampling all of them. Closing stops the
 * candidates that still run, then the witness; the engines close after it, with their applications.
 */
public final class Election implements AutoCloseable {

    private final List<Candidate> candidates = new ArrayList<>();

    private final LeaderWitness witness;

    /** Whether the witness is this election's own, closed with it. */
    private final boolean ownWitness;

    /**
     * Starts a candidate of the election {@code name} on each application.
     * @param yieldPause how long a yielding candidate waits before it stands again
     */
    public Election(String name, List<Application> applications, Duration yieldPause) {
        this(name, engines(applications), yieldPause, null);
    }

    private static Map<String, LockEngine> engines(List<Application> applications) {
        Map<String, LockEngine> engines = new LinkedHashMap<>();
        applications.forEach((application) -> engines.put(application.name(), application.engine()));
        return engines;
    }

    /**
     * Starts a candidate of the election {@code name} on each engine, named by its key in the witness.
     * @param yieldPause how long a yielding candidate waits before it stands again
     */
    public Election(String name, Map<String, ? extends LockEngine> engines, Duration yieldPause) {
        this(name, engines, yieldPause, null);
    }

    /**
     * The same, sampled by a witness the caller keeps (one that also hears candidates elsewhere, say in another
     * process) and closes.
     */
    public Election(String name, Map<String, ? extends LockEngine> engines, Duration yieldPause,
            @Nullable LeaderWitness witness) {
        this.witness = (witness != null) ? witness : new LeaderWitness();
        this.ownWitness = (witness == null);
        engines.forEach((who, engine) -> {
            List<Object> events = new CopyOnWriteArrayList<>();
            LeaderCandidate candidate = new LeaderCandidate(name, engine, events::add, yieldPause);
            this.candidates.add(new Candidate(who, engine, candidate, events));
            this.witness.watch(who, candidate);
            candidate.start();
        });
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
        if (this.ownWitness) {
            this.witness.close();
        }
    }

    /** One candidate: its name, its engine, and every event it published, in order. */
    public record Candidate(String who, LockEngine engine, LeaderCandidate candidate, List<Object> events) {

        /** The reasons of the revocations it published, in order. */
        public List<LeadershipRevokedEvent.Reason> revocations() {
            return this.events.stream().filter(LeadershipRevokedEvent.class::isInstance)
                .map((event) -> ((LeadershipRevokedEvent) event).getReason()).toList();
        }

        @Override
        public String toString() {
            return this.who;
        }
    }
}
