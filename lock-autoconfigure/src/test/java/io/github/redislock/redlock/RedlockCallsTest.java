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
                    for (int i = 0; i < 3 * RedlockNode.MAX_CALLS_IN_FLIGHT; i++) {
                        engine.acquire(LockRequest.of(prefix + i, Duration.ofSeconds(5), null)).close();
                    }
                }, TaskThreads.own()));
            }
            CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).join();
            await().untilAsserted(() -> assertThat(store.nodes())
                .allSatisfy((node) -> assertThat(node.callsOnTheirWay()).as("%s", node).isZero()));
        }
    }

    /**
     * Each round is decided by the fastest majority, so the others' calls pile up on slower nodes, on a busy machine
     * several in turn: three nodes can have every call slot taken while all of them answer. Here two nodes are
     * stalled (paused until the end) and a third is held until its slots are all taken: a round that finds it full
     * must wait for it, not fail (a release that failed so left 'Only 2 Redlock nodes answered').
     */
    @Test
    void aFullNodeThatEndsCallsIsWaitedForAndOnlyAStalledOneIsRefused() throws Exception {
        RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(30)), "");
        RedlockNode[] nodes = store.nodes();
        int threads = RedlockNode.MAX_CALLS_IN_FLIGHT + 8;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong cycles = new AtomicLong();
        ExecutorService workers = Executors.newFixedThreadPool(threads);
        try (LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE)) {
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
            masters.get(0).pause();
            masters.get(1).pause();
            await().atMost(Duration.ofMinutes(1)).until(() -> nodes[0].isStalled() && nodes[1].isStalled());
            masters.get(2).pause();
            await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(1))
                .until(() -> nodes[2].callsOnTheirWay() == RedlockNode.MAX_CALLS_IN_FLIGHT);
            masters.get(2).resume();
            long before = cycles.get();
            await().atMost(Duration.ofMinutes(1)).until(() -> cycles.get() > before + 4L * threads);
            stop.set(true);
            for (Future<?> worker : running) {
                worker.get(1, TimeUnit.MINUTES);
            }
            assertThat(nodes[2].isStalled()).isFalse();
        }
        finally {
            stop.set(true);
            workers.shutdownNow();
            masters.get(0).resume();
            masters.get(1).resume();
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
        try (RedlockStore store = new RedlockStore(masters.connect(Duration.ofSeconds(5)), "")) {
            RedlockNode[] nodes = store.nodes();
            StoreLock lock = store.take(store.key("extend:full"), "unused", 30_000, true,
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            assertThat(lock).isNotNull();
            assertThat(store.extend(List.of(lock), 30_000)).containsExactly(Extension.EXTENDED);
            await().until(() -> Arrays.stream(nodes).allMatch((node) -> node.callsOnTheirWay() == 0));
            for (int i = 0; i < 3; i++) {
                while (nodes[i].startCall()) {
                    // every slot taken
                }
            }
            assertThat(nodes[0].awaitCall(System.nanoTime())).isFalse();
            assertThat(nodes[1].awaitCall(System.nanoTime())).isFalse();
            AtomicReference<Thread> extending = new AtomicReference<>();
            Future<Extension[]> extended = extender.submit(() -> {
                extending.set(Thread.currentThread());
                return store.extend(List.of(lock), 30_000);
            });
            await().until(() -> extending.get() != null && extending.get().getState() == Thread.State.TIMED_WAITING);
            nodes[2].callEnded();
            assertThat(extended.get(1, TimeUnit.MINUTES)).containsExactly(Extension.EXTENDED);
            for (int i = 0; i < 3; i++) {
                while (nodes[i].callsOnTheirWay() > 0) {
                    nodes[i].callEnded();
                }
            }
            assertThat(lock.release(0)).isTrue();
        }
        finally {
            extender.shutdownNow();
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
                .allSatisfy((node) -> assertThat(node.callsOnTheirWay()).as("%s", node).isZero()));
        }
    }
}
