package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.storekit.LeaderWitness;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TestConnections;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Leader candidates in this JVM on one Redis, each on a connection and an engine of its own (key prefix
 * {@code kit:}), sampled by a witness, each with the events it published. Closing stops them and their engines.
 */
final class RedisCandidates implements AutoCloseable {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<LockEngine> engines = new ArrayList<>();

    private final List<LeaderCandidate> candidates = new ArrayList<>();

    private final List<List<Object>> events = new ArrayList<>();

    RedisCandidates(RedisServer server, String election, Duration lease, int count, LeaderWitness witness) {
        for (int i = 0; i < count; i++) {
            LettuceConnectionFactory factory = TestConnections.lettuce(server, Duration.ofSeconds(5));
            this.factories.add(factory);
            LockEngine engine = new RedisLockClient(factory, "kit:", lease, LockLossListener.NONE, null);
            this.engines.add(engine);
            List<Object> published = new CopyOnWriteArrayList<>();
            this.events.add(published);
            LeaderCandidate candidate = new LeaderCandidate(election, engine, published::add);
            this.candidates.add(candidate);
            witness.watch("candidate-" + i, candidate);
            candidate.start();
        }
    }

    /** The candidate that leads now, if one does. */
    Optional<LeaderCandidate> leader() {
        return this.candidates.stream().filter(LeaderCandidate::isLeader).findFirst();
    }

    /** What the candidate published, in order. */
    List<Object> eventsOf(LeaderCandidate candidate) {
        return this.events.get(this.candidates.indexOf(candidate));
    }

    @Override
    public void close() {
        this.candidates.forEach(LeaderCandidate::stop);
        this.engines.forEach(LockEngine::close);
        this.factories.forEach(LettuceConnectionFactory::destroy);
    }
}
