package io.github.redislock.redlock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.testsupport.LineIndependent;
import io.github.redislock.testsupport.TaskThreads;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The transitions of a Redlock node's call slots (FREE, FULL, STALLED; see {@link CallSlots}), driven by taking and
 * ending calls by hand.
 */
@LineIndependent
class CallSlotsTest {

    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    @Test
    void aFreeSlotIsTakenAtOnceAndTheLastOneMakesTheNodeFull() throws InterruptedException {
        CallSlots slots = new CallSlots("node 0", AN_HOUR);
        for (int i = 0; i < CallSlots.MAX - 1; i++) {
            assertThat(slots.take()).isTrue();
        }
        assertThat(slots.await(System.nanoTime())).as("the last slot").isTrue();
        assertThat(slots.onTheirWay()).isEqualTo(CallSlots.MAX);
        assertThat(slots.take()).as("full: a call that cannot wait is refused").isFalse();
        assertThat(slots.isStalled()).isFalse();
        assertThat(slots.refusal()).hasMessage("node 0 has 32 calls on their way already");
    }

    @Test
    void aCallerWaitsForAFullNodeAndTakesTheSlotOfTheNextCallThatEnds() throws Exception {
        CallSlots slots = full(AN_HOUR);
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            return awaitSlot(slots, System.nanoTime());
        }, TaskThreads.own());
        // The waiter parks on the slots: it cannot take one until a call ends.
        await().until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);
        assertThat(waiting).isNotDone();
        slots.ended();
        assertThat(waiting.get(1, TimeUnit.MINUTES)).isTrue();
        assertThat(slots.onTheirWay()).isEqualTo(CallSlots.MAX);
        assertThat(slots.isStalled()).isFalse();
    }

    @Test
    void aWaitThatRunsOutStallsTheNodeAndTheNextCallThatEndsFreesIt() throws InterruptedException {
        CallSlots slots = full(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(slots.await(System.nanoTime())).isFalse();
        assertThat(slots.isStalled()).isTrue();
        slots.ended();
        assertThat(slots.isStalled()).isFalse();
        assertThat(slots.await(System.nanoTime())).as("the slot given back").isTrue();
        assertThat(slots.take()).as("full again, not stalled").isFalse();
        assertThat(slots.isStalled()).isFalse();
    }

    @Test
    void aStalledNodeRefusesAtOnceACallerThatWouldWaitAnHour() throws Exception {
        CallSlots slots = full(AN_HOUR);
        // A wait that began an hour ago has run out: stalled.
        assertThat(slots.await(System.nanoTime() - AN_HOUR)).isFalse();
        assertThat(slots.isStalled()).isTrue();
        // Refused without waiting: with an hour to wait, the 5-minute test timeout would end this test otherwise.
        CompletableFuture<Boolean> refused = CompletableFuture.supplyAsync(() -> awaitSlot(slots, System.nanoTime()),
                TaskThreads.own());
        assertThat(refused.get(1, TimeUnit.MINUTES)).isFalse();
    }

    private static CallSlots full(long stallNanos) {
        CallSlots slots = new CallSlots("node 0", stallNanos);
        while (slots.take()) {
            // every slot taken
        }
        assertThat(slots.onTheirWay()).isEqualTo(CallSlots.MAX);
        return slots;
    }

    private static boolean awaitSlot(CallSlots slots, long since) {
        try {
            return slots.await(since);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
