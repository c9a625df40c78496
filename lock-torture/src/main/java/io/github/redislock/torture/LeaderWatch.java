package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.leader.Leadership;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A worker's record of its terms in the leader election workload ({@link Workload#LEADER}): a thread of its own
 * asks {@link Leadership#term()} (the same answer as {@code isLeader()}, with the term) every
 * {@value #SAMPLE_MILLIS} ms, and the grant and revocation events are noted as they arrive. When the worker stops,
 * one {@link TermRecord} per term goes to the witness ({@link Witness#TERMS}).
 * <p>
 * It also obeys the coordinator's request to yield (a witness key {@code yield:<worker>}, looked at every
 * {@value #YIELD_CHECK_SAMPLES} samples while leading): that is how the clock-jump scenario makes the worker on the
 * faked clock the leader.
 * <pre>
 * state      sample                                next state
 * STANDING   term() present (term t)               LEADING(t): granted = the earlier of now and t's grant event
 * LEADING(t) term() present, t                     LEADING(t): leaderUntil = now
 * LEADING(t) term() empty, or another term u       the record of t (ended = now); STANDING, or LEADING(u)
 * any        the worker stops                      the open term's record (ended 0), every record written
 * </pre>
 */
final class LeaderWatch implements Runnable {

    static final int SAMPLE_MILLIS = 2;

    private static final int YIELD_CHECK_SAMPLES = 25;

    private final String worker;

    private final Leadership leadership;

    private final WitnessClock clock;

    private final String witnessHost;

    private final int witnessPort;

    /** When each term's grant event arrived; written by the candidate's thread. */
    private final Map<Long, Long> grantEvents = new ConcurrentHashMap<>();

    /** Each term's revocation reason; written by the candidate's thread. */
    private final Map<Long, String> reasons = new ConcurrentHashMap<>();

    // The sampler thread's own state. The terms that ended: {term, granted, leaderUntil, ended}, their reasons
    // looked up at the end, since a revocation's event comes after isLeader() turned false.
    private final List<long[]> closed = new ArrayList<>();

    private long term = -1;

    private long granted;

    private long leaderUntil;

    private volatile boolean stopped;

    LeaderWatch(String worker, ConfigurableApplicationContext context, WitnessClock clock, String witnessHost,
            int witnessPort) {
        this.worker = worker;
        this.leadership = context.getBean(Leadership.class);
        this.clock = clock;
        this.witnessHost = witnessHost;
        this.witnessPort = witnessPort;
        // One listener for both events: a lambda's event type cannot be resolved from its generics.
        context.addApplicationListener((ApplicationListener<ApplicationEvent>) this::onEvent);
    }

    private void onEvent(ApplicationEvent event) {
        if (event instanceof LeadershipGrantedEvent granted) {
            this.grantEvents.putIfAbsent(granted.getTerm(), this.clock.nowMicros());
        }
        else if (event instanceof LeadershipRevokedEvent revoked) {
            this.reasons.putIfAbsent(revoked.getTerm(), revoked.getReason().name());
        }
    }

    /** Samples until {@link #stop()}, then writes the records. */
    @Override
    public void run() {
        try (Witness witness = Witness.connect(this.witnessHost, this.witnessPort)) {
            for (long sample = 0; !this.stopped; sample++) {
                OptionalLong now = this.leadership.term();
                long micros = this.clock.nowMicros();
                sample(now, micros);
                if (this.term >= 0 && sample % YIELD_CHECK_SAMPLES == 0
                        && (Long) witness.command("DEL", "yield:" + this.worker) == 1) {
                    this.leadership.yieldLeadership();
                }
                // Sampling is the point: the answer is timed, and nothing else says when it changes.
                Thread.sleep(SAMPLE_MILLIS);
            }
            if (this.term >= 0) {
                this.closed.add(ended(0));
            }
            for (long[] t : this.closed) {
                TermRecord record = new TermRecord(this.worker, t[0], t[1], t[2], t[3],
                        this.reasons.getOrDefault(t[0], "-"));
                witness.command("RPUSH", Witness.TERMS, record.format());
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    void stop() {
        this.stopped = true;
    }

    private void sample(OptionalLong now, long micros) {
        if (this.term >= 0 && (now.isEmpty() || now.getAsLong() != this.term)) {
            this.closed.add(ended(micros));
            this.term = -1;
        }
        if (now.isPresent()) {
            if (this.term < 0) {
                this.term = now.getAsLong();
                this.granted = Math.min(micros, this.grantEvents.getOrDefault(this.term, Long.MAX_VALUE));
            }
            this.leaderUntil = micros;
        }
    }

    private long[] ended(long micros) {
        return new long[] { this.term, this.granted, this.leaderUntil, micros };
    }
}
