package io.github.redislock.redis;

import java.util.concurrent.atomic.AtomicInteger;

import org.jetbrains.lincheck.Lincheck;
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
        Lincheck.runConcurrentTest(invocations(2_000), () -> {
            Line line = new Line();
            AtomicInteger ends = new AtomicInteger();
            boolean[] offered = new boolean[1];
            inParallel(() -> {
                line.join();
                line.leaveTakingTurn();
                offered[0] = line.offer(GRANT);
            }, () -> waiter(line, ends), () -> waiter(line, ends));
            require(ends.get() == (offered[0] ? 1 : 0), "a lock passed to the line ended " + ends.get()
                    + " times (claimed or handed back), offered " + offered[0]);
        });
    }

    /** The checker is not blind: a line that forgets a lock nobody claimed is caught. */
    @Test
    void theCheckerFindsALineThatDropsALockNobodyClaimed() {
        assertThatThrownBy(() -> Lincheck.runConcurrentTest(invocations(2_000), () -> {
            SeededLine line = new SeededLine();
            AtomicInteger ends = new AtomicInteger();
            boolean[] offered = new boolean[1];
            inParallel(() -> {
                line.join();
                line.leaveTakingTurn();
                offered[0] = line.offer(GRANT);
            }, () -> seededWaiter(line, ends), () -> seededWaiter(line, ends));
            require(ends.get() == (offered[0] ? 1 : 0), "a lock passed to the line ended " + ends.get()
                    + " times (claimed or handed back), offered " + offered[0]);
        })).isInstanceOf(AssertionError.class).hasMessageContaining("a lock passed to the line ended 0 times");
    }

    private static void waiter(Line line, AtomicInteger ends) {
        if (!line.join()) {
            return;
        }
        if (line.claim() != null) {
            ends.incrementAndGet();
        }
        if (line.leave().orphan() != null) {
            ends.incrementAndGet();
        }
    }

    private static void seededWaiter(SeededLine line, AtomicInteger ends) {
        line.join();
        if (line.claim() != null) {
            ends.incrementAndGet();
        }
        if (line.leave() != null) {
            ends.incrementAndGet();
        }
    }
}
