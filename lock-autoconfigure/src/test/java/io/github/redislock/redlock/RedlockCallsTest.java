package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TaskThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * How Redlock's calls reach the nodes: a round's answers come back on whatever thread received them, and each
 * node's bound on calls on their way must count every call out and back in, or a healthy node would come to look
 * stalled (its calls refused at once) after enough cycles.
 */
class RedlockCallsTest {

    private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(5);

    @Test
    void everyCallSlotComesBackOnceTheNodesHaveAnswered() {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "");
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            List<CompletableFuture<Void>> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String prefix = "calls:" + t + ":";
                threads.add(CompletableFuture.runAsync(() -> {
                    // More cycles per thread than a node has slots: a slot lost per cycle would exhaust them.
                    for (int i = 0; i < 3 * CallSlots.MAX; i++) {
                        engine.acquire(LockRequest.of(prefix + i, Duration.ofSeconds(5), null)).close();
                    }
                }, TaskThreads.own()));
            }
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();
            await().untilAsserted(() -> assertThat(store.nodes())
                .allSatisfy((node) -> assertThat(node.slots().onTheirWay()).as("%s", node).isZero()));
        }
    }

    /**
     * Each round is decided by the fastest majority, so the others' calls pile up on slower nodes, on a busy machine
     * several in turn: three nodes can have every call slot taken while all of them answer. Here nodes 0 and 1 are
     * stalled (their slots taken by hand, so they are refused at once) and node 2's server is stopped until its slots
     * are all taken, then resumed: a round that finds it full must wait for it, not fail (a release that failed so
     * left 'Only 2 Redlock nodes answered'). The stall time is an hour, so that the test's resuming node 2 never
     * races it.
     */
    @Test
    void aFullNodeThatEndsCallsIsWaitedForAndOnlyAStalledOneIsRefused() throws Exception {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(30)), "", AN_HOUR);
        RedlockNode[] nodes = store.nodes();
        int threads = CallSlots.MAX + 8;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong cycles = new AtomicLong();
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            inOrderOnEveryNode(engine, nodes);
            stall(nodes[0]);
            stall(nodes[1]);
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String prefix = "behind:" + t + ":";
                running.add(workers.submit(() -> {
                    for (int i = 0; !stop.get(); i++) {
                        // Uncontended and not waiting: taken at the first attempt whenever a majority answers.
                        LockHandle handle = engine.acquire(LockRequest.of(prefix + i, Duration.ZERO, null));
                        assertThat(handle).as("taken").isNotNull();
                        handle.close();
                        cycles.incrementAndGet();
                    }
                    return null;
                }));
            }
            await().until(() -> cycles.get() > threads);
            masters.get(2).pause();
            await().atMost(Duration.ofMinutes(1))
                .until(() -> nodes[2].slots().onTheirWay() == CallSlots.MAX && waitingForASlot());
            masters.get(2).resume();
            long before = cycles.get();
            await().atMost(Duration.ofMinutes(1)).until(() -> cycles.get() > before + 4L * threads);
            stop.set(true);
            for (Future<?> worker : running) {
                worker.get(1, TimeUnit.MINUTES);
            }
            assertThat(nodes[2].slots().isStalled()).isFalse();
            giveBack(nodes[0]);
            giveBack(nodes[1]);
        }
        finally {
            stop.set(true);
            workers.shutdownNow();
            masters.get(2).resume();
        }
    }

    /**
     * A renewal goes to each node after the lock's previous extension there ended; sent from the renewing thread, it
     * waits for a full node as any round does. Here every slot is taken by hand (no call reaches a server): nodes 0 and
     * 1 stalled, node 2 full until the extension waits for it.
     */
    @Test
    void anExtensionAfterAnEarlierOneWaitsForAFullNodeToo() throws Exception {
        ExecutorService extender = Executors.newSingleThreadExecutor();
        try (RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "", AN_HOUR)) {
            RedlockNode[] nodes = store.nodes();
            StoreLock lock = store.take(store.key("extend:full"), "unused", 30_000, true,
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            assertThat(lock).isNotNull();
            assertThat(store.extend(List.of(lock), 30_000)).containsExactly(Extension.EXTENDED);
            await().until(() -> Arrays.stream(nodes).allMatch((node) -> node.slots().onTheirWay() == 0));
            stall(nodes[0]);
            stall(nodes[1]);
            fill(nodes[2]);
            AtomicReference<Thread> extending = new AtomicReference<>();
            Future<Extension[]> extended = extender.submit(() -> {
                extending.set(Thread.currentThread());
                return store.extend(List.of(lock), 30_000);
            });
            await().until(() -> extending.get() != null && extending.get().getState() == Thread.State.TIMED_WAITING);
            nodes[2].slots().ended();
            assertThat(extended.get(1, TimeUnit.MINUTES)).containsExactly(Extension.EXTENDED);
            giveBack(nodes[0]);
            giveBack(nodes[1]);
            giveBack(nodes[2]);
            assertThat(lock.release(0)).isTrue();
        }
        finally {
            extender.shutdownNow();
        }
    }

    /**
     * A caller interrupted while it waits for a full node's slot: the node counts as not answering, the attempt fails
     * with the thread still interrupted, and the lock is left on no node (nodes 3 and 4, which took it, had it undone).
     */
    @Test
    void aCallerInterruptedWhileItWaitsForAFullNodeFailsAndLeavesNothingHeld() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "", AN_HOUR);
        RedlockNode[] nodes = store.nodes();
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            inOrderOnEveryNode(engine, nodes);
            stall(nodes[0]);
            stall(nodes[1]);
            fill(nodes[2]);
            AtomicReference<Thread> taking = new AtomicReference<>();
            Future<Boolean> stillInterrupted = caller.submit(() -> {
                taking.set(Thread.currentThread());
                assertThatThrownBy(() -> engine.acquire(LockRequest.of("interrupted", Duration.ofSeconds(5), null)))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("Interrupted");
                return Thread.interrupted();
            });
            await().until(() -> taking.get() != null && taking.get().getState() == Thread.State.TIMED_WAITING);
            taking.get().interrupt();
            assertThat(stillInterrupted.get(1, TimeUnit.MINUTES)).as("the interrupt kept").isTrue();
            giveBack(nodes[0]);
            giveBack(nodes[1]);
            giveBack(nodes[2]);
            await().untilAsserted(() -> assertThat(masters.all())
                .allSatisfy((master) -> assertThat(master.command("EXISTS", "interrupted")).isEqualTo(0L)));
        }
        finally {
            caller.shutdownNow();
        }
    }

    @Test
    void nodesThatLostTheirScriptsAreSentTheBodiesAndTheLockIsTakenOnEveryNode() {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "");
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            engine.acquire(LockRequest.of("scripts:before", Duration.ofSeconds(5), null)).close();
            masters.all().forEach((master) -> master.command("SCRIPT", "FLUSH"));
            LockHandle handle = engine.acquire(LockRequest.of("scripts:after", Duration.ZERO, null));
            String owner = handle.token().substring(0, handle.token().indexOf(':') + 1);
            await().untilAsserted(() -> assertThat(masters.all())
                .allSatisfy((master) -> assertThat((String) master.command("GET", "scripts:after")).startsWith(owner)));
            handle.close();
            await().untilAsserted(() -> assertThat(masters.all())
                .allSatisfy((master) -> assertThat(master.command("EXISTS", "scripts:after")).isEqualTo(0L)));
        }
    }

    @Test
    void anErrorReplyFromEveryNodeFailsTheTakeAtOnceAndGivesTheSlotsBack() {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "");
        masters.all().forEach((master) -> master.command("HSET", "errors:hash", "field", "value"));
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
            // The acquire script's GET of a hash is an error reply on every node: no majority can answer.
            assertThatThrownBy(() -> engine.acquire(LockRequest.of("errors:hash", Duration.ZERO, null)))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("Only 0 of 5 Redlock nodes answered");
            await().untilAsserted(() -> assertThat(store.nodes())
                .allSatisfy((node) -> assertThat(node.slots().onTheirWay()).as("%s", node).isZero()));
        }
    }

    /**
     * Cycles until every node's calls go out on its shared connection (a new store's first calls go through a pool,
     * where a node may apply them in another order; see LettuceNodeCalls), then waits until no call is on its way
     * to any node: a slot taken by hand stays taken only if no call of the warm-up can still end and free one.
     */
    private static void inOrderOnEveryNode(LockEngine engine, RedlockNode[] nodes) {
        await().atMost(Duration.ofMinutes(1)).until(() -> {
            engine.acquire(LockRequest.of("warm-up", Duration.ZERO, null)).close();
            return Arrays.stream(nodes).allMatch(RedlockNode::sendsInOrder);
        });
        await().until(() -> Arrays.stream(nodes).allMatch((node) -> node.slots().onTheirWay() == 0));
    }

    /** Takes every free slot of the node by hand. */
    private static void fill(RedlockNode node) {
        while (node.slots().take()) {
            // every slot taken
        }
    }

    /** Takes every slot of the node by hand and stalls it (a wait that began a stall time ago runs out at once). */
    private static void stall(RedlockNode node) throws InterruptedException {
        fill(node);
        assertThat(node.slots().await(System.nanoTime() - AN_HOUR)).isFalse();
        assertThat(node.slots().isStalled()).isTrue();
    }

    /** Gives back every slot taken (by hand, or by calls no longer expected to end). */
    private static void giveBack(RedlockNode node) {
        while (node.slots().onTheirWay() > 0) {
            node.slots().ended();
        }
    }

    /** Whether a worker is parked waiting for a node's slot. */
    private static boolean waitingForASlot() {
        return Thread.getAllStackTraces().entrySet().stream()
            .anyMatch((entry) -> Arrays.stream(entry.getValue())
                .anyMatch((frame) -> frame.getClassName().equals(CallSlots.class.getName())
                        && frame.getMethodName().equals("await")));
    }
}
