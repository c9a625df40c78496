package io.github.redislock.redis;

import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.lincheck.Lincheck;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static io.github.redislock.modelcheck.Threads.inParallel;
import static io.github.redislock.modelcheck.Threads.invocations;
import static io.github.redislock.modelcheck.Threads.require;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis store's local line of waiting threads ({@link Line}) and the hand-over of a lock between threads of one
 * application, model-checked: Lincheck runs the threads below under every interleaving it explores, and the
 * invariant is that a lock passed to the line ends exactly once: claimed by one waiter, or handed back by the last
 * one to leave (which must then release it in Redis), never both, never neither (a key left held by nobody here,
 * idle until its lease ends). The waiters join, try to claim, and leave, as {@link Waiting}'s loop does around its
 * parks; the holder took the key in Redis (its turn begins, the waiters already there are eligible) and passes it on.
 */
class LineModelCheckTest {

    private static final LocalGrant GRANT = new LocalGrant("owner:1", 1, true, 3000, Long.MAX_VALUE, 1, 0);

    @Test
    void aLockPassedToTheLineIsClaimedByOneWaiterOrHandedBackByTheLastToLeave() {
        Lincheck.runConcurrentTest(invocations(2_000), () -> passedOnce(new RealLine(new Line(), false)));
    }

    /**
     * The same with {@code redis-lock.local-handover-rejoin}: a waiter that joined after the turn began may be offered
     * the lock too, which opens the interleavings where the holder offers before, between or after the joins.
     */
    @Test
    void withRejoinALockPassedToTheLineIsClaimedByOneWaiterOrHandedBackByTheLastToLeave() {
        Lincheck.runConcurrentTest(invocations(2_000), () -> passedOnce(new RealLine(new Line(), true)));
    }

    /** The checker is not blind: a line that forgets a lock nobody claimed is caught. */
    @Test
    void theCheckerFindsALineThatDropsALockNobodyClaimed() {
        assertThatThrownBy(() -> Lincheck.runConcurrentTest(invocations(2_000), () -> passedOnce(new SeededLine())))
            .isInstanceOf(AssertionError.class).hasMessageContaining("a lock passed to the line ended 0 times");
    }

    private static void passedOnce(HandOver line) {
        AtomicInteger ends = new AtomicInteger();
        boolean[] offered = new boolean[1];
        inParallel(() -> {
            line.join();
            line.leaveTakingTurn();
            offered[0] = line.offer(GRANT);
        }, () -> waiter(line, ends), () -> waiter(line, ends));
        require(ends.get() == (offered[0] ? 1 : 0), "a lock passed to the line ended " + ends.get()
                + " times (claimed or handed back), offered " + offered[0]);
    }

    private static void waiter(HandOver line, AtomicInteger ends) {
        line.join();
        if (line.claim() != null) {
            ends.incrementAndGet();
        }
        if (line.leave() != null) {
            ends.incrementAndGet();
        }
    }

    /** What the check drives of a line: {@link Line}'s hand-over steps. */
    interface HandOver {

        void join();

        void leaveTakingTurn();

        boolean offer(LocalGrant grant);

        @Nullable LocalGrant claim();

        /** Leaves; a lock passed to the line that the caller must now release, or null. */
        @Nullable LocalGrant leave();
    }

    /** The real line, offering as a store with or without {@code local-handover-rejoin} does. */
    private record RealLine(Line line, boolean rejoin) implements HandOver {

        @Override
        public void join() {
            this.line.join();
        }

        @Override
        public void leaveTakingTurn() {
            this.line.leaveTakingTurn();
        }

        @Override
        public boolean offer(LocalGrant grant) {
            return this.line.offer(grant, this.rejoin);
        }

        @Override
        public @Nullable LocalGrant claim() {
            return this.line.claim();
        }

        @Override
        public @Nullable LocalGrant leave() {
            return this.line.leave().orphan();
        }
    }
}
