package io.github.redislock.redlock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The transitions of a Redlock node's call slots (FREE, FULL, STALLED; see {@link RedlockNode}), driven by taking
 * and ending calls by hand: no call reaches the server.
 */
class RedlockNodeSlotsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private final ExecutorService waiters = Executors.newSingleThreadExecutor();

    private RedisConnectionFactory factory;

    private RedlockNode node;

    @BeforeEach
    void node() {
        this.factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        this.node = new RedlockNode("node 0", this.factory, Runnable::run);
    }

    @AfterEach
    void close() {
        this.waiters.shutdownNow();
        TestConnections.destroy(this.factory);
    }

    @Test
    void aFreeSlotIsTakenAtOnceAndTheLastOneMakesTheNodeFull() throws InterruptedException {
        for (int i = 0; i < RedlockNode.MAX_CALLS_IN_FLIGHT - 1; i++) {
            assertThat(this.node.startCall()).isTrue();
        }
        assertThat(this.node.awaitCall(System.nanoTime())).as("the last slot, with no time to wait").isTrue();
        assertThat(this.node.callsOnTheirWay()).isEqualTo(RedlockNode.MAX_CALLS_IN_FLIGHT);
        assertThat(this.node.startCall()).as("full: a call that cannot wait is refused").isFalse();
        assertThat(this.node.isStalled()).isFalse();
    }

    @Test
    void aCallerWaitsForAFullNodeAndTakesTheSlotOfTheNextCallThatEnds() throws Exception {
        fill();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            return awaitCall(TimeUnit.MINUTES.toNanos(5));
        }, this.waiters);
        // The waiter parks on the node's slots: it cannot take one until a call ends.
        await().until(() -> waiter.get() != null && waiter.get().getState() == Thread.State.TIMED_WAITING);
        assertThat(waiting).isNotDone();
        this.node.callEnded();
        assertThat(waiting.get(1, TimeUnit.MINUTES)).isTrue();
        assertThat(this.node.callsOnTheirWay()).isEqualTo(RedlockNode.MAX_CALLS_IN_FLIGHT);
        assertThat(this.node.isStalled()).isFalse();
    }

    @Test
    void aWaitThatRunsOutStallsTheNodeAndTheNextCallThatEndsFreesIt() throws InterruptedException {
        fill();
        assertThat(this.node.awaitCall(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50))).isFalse();
        assertThat(this.node.isStalled()).isTrue();
        // Stalled: refused without waiting, however long the caller would wait (an hour here).
        CompletableFuture<Boolean> refused = CompletableFuture.supplyAsync(() -> awaitCall(TimeUnit.HOURS.toNanos(1)),
                this.waiters);
        assertThat(refused.join()).isFalse();
        this.node.callEnded();
        assertThat(this.node.isStalled()).isFalse();
        assertThat(this.node.awaitCall(System.nanoTime())).as("the slot given back").isTrue();
        assertThat(this.node.startCall()).as("full again, not stalled").isFalse();
        assertThat(this.node.isStalled()).isFalse();
    }

    private void fill() {
        while (this.node.startCall()) {
            // every slot taken
        }
        assertThat(this.node.callsOnTheirWay()).isEqualTo(RedlockNode.MAX_CALLS_IN_FLIGHT);
    }

    private boolean awaitCall(long nanos) {
        try {
            return this.node.awaitCall(System.nanoTime() + nanos);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
