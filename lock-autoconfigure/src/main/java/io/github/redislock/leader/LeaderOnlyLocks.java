package io.github.redislock.leader;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * The provider behind {@code @LeaderOnly}: "acquiring" the election's name succeeds only while this instance leads
 * it, and gives a handle on the current term, which holds nothing and releases nothing; otherwise
 * {@link LockNotAcquiredException}, which the annotation's front end turns into a skipped call. The handle is held
 * while the term lasts, and lost when the term ended before the call did (lost, yielded or stopped: another
 * instance may have led meanwhile), so that the front end tells it as a lost lock ({@code redis-lock.on-lease-lost}).
 * A request's one key is the election's name.
 */
public final class LeaderOnlyLocks implements LockProvider {

    private static final Log logger = LogFactory.getLog(LeaderOnlyLocks.class);

    private final Supplier<? extends Collection<? extends Leadership>> leaderships;

    private volatile @Nullable Map<String, Leadership> byName;

    /** @param leaderships the application's elections, looked up on first use */
    public LeaderOnlyLocks(Supplier<? extends Collection<? extends Leadership>> leaderships) {
        this.leaderships = leaderships;
    }

    /**
     * @throws LockNotAcquiredException if this instance does not lead the election now
     * @throws LockException if the application has no election of that name
     */
    @Override
    public LockHandle acquire(LockRequest request) {
        String name = request.keys().get(0);
        Leadership leadership = elections().get(name);
        if (leadership == null) {
            throw new LockException("@LeaderOnly names the election '" + name + "', but the application stands in "
                    + (elections().isEmpty() ? "none" : "only " + elections().keySet())
                    + "; set redis-lock.leader.name or define a LeaderCandidate bean of that name");
        }
        OptionalLong term = leadership.term();
        if (term.isEmpty()) {
            throw new LockNotAcquiredException(List.of(name), Duration.ZERO);
        }
        return new TermHandle(leadership, term.getAsLong());
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

        private final Leadership leadership;

        private final long term;

        /** Set at close: whether the term ended before the call did. */
        private volatile @Nullable Boolean endedDuringCall;

        TermHandle(Leadership leadership, long term) {
            this.leadership = leadership;
            this.term = term;
        }

        private boolean current() {
            OptionalLong now = this.leadership.term();
            return now.isPresent() && now.getAsLong() == this.term;
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
            return (ended != null) ? ended : !current();
        }

        @Override
        public boolean verifyHeld() {
            return isHeld();
        }

        @Override
        public void close() {
            if (this.endedDuringCall == null) {
                boolean ended = !current();
                this.endedDuringCall = ended;
                if (ended) {
                    logger.warn("The leadership of '" + this.leadership.name() + "' (term " + this.term + ") ended "
                            + "while a @LeaderOnly call ran, so another instance may have run it at the same time");
                }
            }
        }

        @Override
        public String toString() {
            return "Leadership[" + this.leadership.name() + ", term " + this.term + "]";
        }
    }
}
