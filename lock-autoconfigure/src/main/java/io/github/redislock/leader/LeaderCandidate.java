package io.github.redislock.leader;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.DaemonThreads;
import io.github.redislock.engine.LockEngine;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;

/**
 * A candidate in the election of one name: a daemon thread of its own ({@code lock-leader}) stands for the
 * election's lock (the lock name {@code leader~<name>}, taken with a lease renewed every third of the engine's
 * renewed lease, {@code redis-lock.lease-time}), leads while it holds it, and gives it up when yielding or stopping.
 * Standing costs one waiting acquisition: the store tells the candidate when the lock is released (Redis hand-off,
 * ZooKeeper watch, the in-memory line; Redlock retries every 20–70 ms), and the wait is taken again every
 * {@value #STAND_WAIT_MINUTES} minutes. Leading costs the engine's one renewal per tick and a check of the local
 * lease clock every {@link #leaseCheck()} on the candidate's thread, which sends nothing.
 * <pre>
 * state     event                                                       next state
 * STOPPED   start()                                                     STANDING
 * STANDING  the election's lock taken                                   LEADER: isLeader() true, then
 *                                                                       LeadershipGrantedEvent(term)
 * STANDING  the wait ends without it                                    STANDING (waits again)
 * STANDING  the store fails                                             PAUSED (retry pause), then STANDING
 * LEADER    the lock no longer held: lease run out by this JVM's clock, REVOKED(LOST): isLeader() false at once;
 *           lost in the store (found by renewal, a LockLostEvent); or   within a lease check the event, then
 *           this JVM stood still longer than a renewal period           the lock released; then STANDING
 * LEADER    yieldLeadership()                                           REVOKED(YIELDED): isLeader() false, the
 *                                                                       event, then the lock released; PAUSED
 *                                                                       (yield pause), then STANDING
 * LEADER    stop()                                                      REVOKED(STOPPED): isLeader() false, the
 *                                                                       event, the lock released; STOPPED
 * STANDING, stop()                                                      STOPPED (the wait interrupted: nothing
 * PAUSED                                                                held)
 * </pre>
 * {@link #isLeader()} reads the term's lock handle: its {@code isHeld()} follows the lease by this JVM's clock
 * (counted from when the take or extension was sent, so before the store's) and turns false at once when the
 * engine finds the lock lost. Over a {@link LockEngine}, it is also false once the leader's thread has not looked
 * at its term for longer than the engine's renewal period (a third of its lease): this JVM stood still (a long
 * GC, a frozen VM), and a store without leases (ZooKeeper) may not have told its client yet that the session ended
 * meanwhile; such a term is over, revoked LOST when the thread runs again. A revocation by this instance (YIELDED, STOPPED) is published before the lock is
 * released, so another instance is granted only after the listeners here have returned. A listener that throws is
 * logged; the candidate carries on.
 * <p>
 * A Spring bean of it starts when the context has been refreshed (a {@link SmartLifecycle} in phase
 * {@link #PHASE}, after the web server and every singleton, so no {@code @EventListener} misses a grant) and stops
 * first when it closes, before the engine and the store. Without Spring, call {@link #start()} and {@link #stop()}.
 * Several elections: one candidate per name, each with its own thread.
 */
public class LeaderCandidate implements Leadership, SmartLifecycle, ApplicationListener<LockLostEvent> {

    /** After the web server starts (Boot's {@code WebServerStartStopLifecycle}), stopped before it. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    /** {@code redis-lock.leader.yield-pause}'s default. */
    public static final Duration DEFAULT_YIELD_PAUSE = Duration.ofSeconds(1);

    static final int STAND_WAIT_MINUTES = 10;

    private static final Log logger = LogFactory.getLog(LeaderCandidate.class);

    /** How long stop() waits for the thread to publish the revocation and release. */
    private static final long STOP_WAIT_MILLIS = TimeUnit.SECONDS.toMillis(30);

    private final String name;

    private final LockRequest request;

    private final LockProvider locks;

    private final ApplicationEventPublisher events;

    private final long yieldPauseNanos;

    private final long leaseCheckNanos;

    private final CandidateState state;

    /**
     * A candidate that stands again {@link #DEFAULT_YIELD_PAUSE} after yielding.
     * @see #LeaderCandidate(String, LockProvider, ApplicationEventPublisher, Duration)
     */
    public LeaderCandidate(String name, LockProvider locks, ApplicationEventPublisher events) {
        this(name, locks, events, DEFAULT_YIELD_PAUSE);
    }

    /**
     * @param name the election: every instance with a candidate of this name stands in it
     * @param locks takes the election's lock (the application's {@code LockEngine})
     * @param events where grants and revocations are published (the application context)
     * @param yieldPause how long after yielding this candidate stands again: the other candidates, which wait
     * for the lock, get it first
     * @throws IllegalArgumentException if the name is blank or makes no valid lock name (a control character), or
     * the pause is negative
     */
    public LeaderCandidate(String name, LockProvider locks, ApplicationEventPublisher events, Duration yieldPause) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("The election's name must not be blank: '" + name + "'");
        }
        if (yieldPause == null || yieldPause.isNegative()) {
            throw new IllegalArgumentException("The yield pause must be zero or more: " + yieldPause);
        }
        try {
            this.request = LockRequest.of("leader~" + name, Duration.ofMinutes(STAND_WAIT_MINUTES), null)
                .nonReentrant();
        }
        catch (RuntimeException ex) {
            // Not echoed: a name with a control character would forge log lines.
            throw new IllegalArgumentException("The election's name makes no lock name: " + ex.getMessage(), ex);
        }
        this.name = name;
        this.locks = locks;
        this.events = events;
        this.yieldPauseNanos = yieldPause.toNanos();
        this.leaseCheckNanos = leaseCheck(locks).toNanos();
        this.state = new CandidateState(this.leaseCheckNanos,
                (locks instanceof LockEngine engine) ? engine.renewalPeriod().toNanos() : Long.MAX_VALUE);
    }

    /** A tenth of the renewal period of an engine, at most 100 ms: the loss is told well within a lease. */
    private static Duration leaseCheck(LockProvider locks) {
        Duration limit = Duration.ofMillis(100);
        if (locks instanceof LockEngine engine) {
            Duration tenth = engine.renewalPeriod().dividedBy(10);
            return (tenth.compareTo(limit) < 0) ? tenth.plusMillis(1) : limit;
        }
        return limit;
    }

    @Override
    public String name() {
        return this.name;
    }

    /** The lock name of the election: {@code leader~<name>}, before the key prefix. Never lock it yourself. */
    public String lockName() {
        return this.request.keys().get(0);
    }

    /** How often the leader's thread checks its lease by the local clock. */
    public Duration leaseCheck() {
        return Duration.ofNanos(this.leaseCheckNanos);
    }

    @Override
    public boolean isLeader() {
        return this.state.term().isPresent();
    }

    @Override
    public OptionalLong term() {
        return this.state.term();
    }

    @Override
    public void yieldLeadership() {
        this.state.yieldLeadership();
    }

    @Override
    public boolean awaitLeadership(Duration timeout) throws InterruptedException {
        return this.state.awaitTerm(timeout.toNanos());
    }

    /** A lock found lost: the leader's thread looks at once, not at its next lease check. */
    @Override
    public void onApplicationEvent(LockLostEvent event) {
        LockHandle current = this.state.termLock();
        if (current != null && current.key().equals(event.getKey())) {
            this.state.signal();
        }
    }

    @Override
    public void start() {
        Thread runner = DaemonThreads.named("lock-leader").newThread(new CandidateLoop(this, this.state));
        if (this.state.start(runner)) {
            runner.start();
        }
    }

    /**
     * Ends the candidacy: a leader publishes its revocation (STOPPED) and releases the lock; a standing candidate
     * stops waiting. Returns once that is done (at most 30 s).
     */
    @Override
    public void stop() {
        Thread runner = this.state.stop();
        if (runner == null) {
            return;
        }
        try {
            runner.join(STOP_WAIT_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        if (runner.isAlive()) {
            logger.warn("The candidate of the election '" + this.name + "' did not stop within " + STOP_WAIT_MILLIS
                    + " ms (a revocation listener still running?)");
        }
        this.state.stopped();
    }

    @Override
    public boolean isRunning() {
        return this.state.isRunning();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Whether the term's lock is still held although the term ended here (YIELDED, STOPPED): not released yet. */
    boolean stillHolds(long term) {
        return this.state.stillHolds(term);
    }

    LockRequest request() {
        return this.request;
    }

    LockProvider locks() {
        return this.locks;
    }

    /** How long the candidate pauses after yielding. */
    long yieldPauseNanos() {
        return this.yieldPauseNanos;
    }

    void publish(Object event) {
        try {
            this.events.publishEvent(event);
        }
        catch (RuntimeException ex) {
            logger.warn("A listener of the election '" + this.name + "' failed on " + event, ex);
        }
    }

    @Override
    public String toString() {
        return "LeaderCandidate[" + this.name + "]";
    }
}
