package io.github.redislock.leader;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

import org.springframework.context.ApplicationListener;

/**
 * The calls of {@code @LeaderOnly} methods: {@link #locks()} is the provider behind them, with which "acquiring" the
 * election's name succeeds only while this instance leads it, giving a handle on the current term that holds and
 * releases nothing; otherwise {@link LockNotAcquiredException}, which the annotation's front end turns into a
 * skipped call. The handle is held while the term lasts, and lost when the call ended after the term did and after
 * its lock was released or lost (another instance may have led meanwhile), so that the front end tells it as a lost
 * lock ({@code redis-lock.on-lease-lost}).
 * <p>
 * A leadership given up here (YIELDED, STOPPED) waits, as a listener of its {@link LeadershipRevokedEvent} (which the
 * candidate publishes before it releases the election's lock), until the calls still running in the ending term
 * have returned, at most {@link #DRAIN_WAIT}: no new call starts once {@code isLeader()} is false, so no call of this
 * term overlaps the next leader's, whoever it is. A term that was LOST is not waited for: another instance may lead
 * already.
 */
public final class LeaderOnlyCalls implements ApplicationListener<LeadershipRevokedEvent> {

    /** How long a revocation waits at most for the calls still running in the ending term. */
    public static final Duration DRAIN_WAIT = Duration.ofSeconds(25);

    private static final Log logger = LogFactory.getLog(LeaderOnlyCalls.class);

    private final Supplier<? extends Collection<? extends Leadership>> leaderships;

    private volatile @Nullable Map<String, Leadership> byName;

    /** Calls running now, per election; guarded by itself, which is notified when a call ends. */
    private final Map<String, Integer> running = new HashMap<>();

    private final LockProvider locks = this::acquire;

    /** @param leaderships the application's elections, looked up on first use */
    public LeaderOnlyCalls(Supplier<? extends Collection<? extends Leadership>> leaderships) {
        this.leaderships = leaderships;
    }

    /** The provider of {@code @LeaderOnly}'s calls: a request's one key is the election's name. */
    public LockProvider locks() {
        return this.locks;
    }

    /**
     * @throws LockNotAcquiredException if this instance does not lead the election now
     * @throws LockException if the application has no election of that name
     */
    private LockHandle acquire(LockRequest request) {
        String name = request.keys().get(0);
        Leadership leadership = elections().get(name);
        if (leadership == null) {
            throw new LockException("@LeaderOnly names the election '" + name + "', but the application stands in "
                    + (elections().isEmpty() ? "none" : "only " + elections().keySet())
                    + "; set redis-lock.leader.name or define a LeaderCandidate bean of that name");
        }
        synchronized (this.running) {
            // Counted before the term is read: a revocation that finds no call running has made isLeader() false
            // already, so a call that reads the term after it is refused.
            this.running.merge(name, 1, Integer::sum);
        }
        OptionalLong term = leadership.term();
        if (term.isEmpty()) {
            ended(name);
            throw new LockNotAcquiredException(List.of(name), Duration.ZERO);
        }
        return new TermHandle(this, leadership, term.getAsLong());
    }

    private void ended(String name) {
        synchronized (this.running) {
            this.running.merge(name, -1, (a, b) -> (a + b == 0) ? null : a + b);
            this.running.notifyAll();
        }
    }

    /** Waits for the calls of a term given up here to return (see the class documentation). */
    @Override
    public void onApplicationEvent(LeadershipRevokedEvent event) {
        if (event.getReason() == LeadershipRevokedEvent.Reason.LOST) {
            return;
        }
        long deadline = System.nanoTime() + DRAIN_WAIT.toNanos();
        synchronized (this.running) {
            long left;
            while (this.running.containsKey(event.getName()) && (left = deadline - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(this.running, left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            if (this.running.containsKey(event.getName())) {
                logger.warn("@LeaderOnly calls of '" + event.getName() + "' still run " + DRAIN_WAIT.toSeconds()
                        + " s after its term " + event.getTerm() + " ended; the leadership is released all the same");
            }
        }
    }

    /** The elections by name. */
    public Map<String, Leadership> elections() {
        Map<String, Leadership> known = this.byName;
        if (known == null) {
            known = new HashMap<>();
            for (Leadership leadership : this.leaderships.get()) {
                known.put(leadership.name(), leadership);
            }
            known = Map.copyOf(known);
            this.byName = known;
        }
        return known;
    }

    /** One call's view of the term it runs in. */
    private static final class TermHandle implements LockHandle {

        private final LeaderOnlyCalls calls;

        private final Leadership leadership;

        private final long term;

        /** Set at close: whether the term ended before the call did. */
        private volatile @Nullable Boolean endedDuringCall;

        TermHandle(LeaderOnlyCalls calls, Leadership leadership, long term) {
            this.calls = calls;
            this.leadership = leadership;
            this.term = term;
        }

        private boolean current() {
            OptionalLong now = this.leadership.term();
            return now.isPresent() && now.getAsLong() == this.term;
        }

        /** Whether no other instance can have led yet: the term goes on, or its lock is not released yet. */
        private boolean exclusive() {
            return current() || (this.leadership instanceof LeaderCandidate candidate && candidate.stillHolds(this.term));
        }

        @Override
        public String key() {
            return this.leadership.name();
        }

        @Override
        public String token() {
            return "term:" + this.term;
        }

        @Override
        public long fencingToken() {
            return this.term;
        }

        @Override
        public boolean isHeld() {
            return this.endedDuringCall == null && current();
        }

        @Override
        public boolean isLost() {
            Boolean ended = this.endedDuringCall;
            return (ended != null) ? ended : !exclusive();
        }

        @Override
        public boolean verifyHeld() {
            return isHeld();
        }

        @Override
        public void close() {
            if (this.endedDuringCall == null) {
                boolean ended = !exclusive();
                this.endedDuringCall = ended;
                this.calls.ended(this.leadership.name());
                if (ended) {
                    logger.warn("The leadership of '" + this.leadership.name() + "' (term " + this.term + ") ended "
                            + "and was released while a @LeaderOnly call ran, so another instance may have led meanwhile");
                }
            }
        }

        @Override
        public String toString() {
            return "Leadership[" + this.leadership.name() + ", term " + this.term + "]";
        }
    }
}
