package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockInspection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The production engine's semantics through {@link InProcessLockProvider}: several threads, real waiting, leases
 * that run out and are renewed, losses signalled, and the endpoint's snapshot. Who is inside is judged by the
 * test's own witnesses, not by the provider.
 */
@Timeout(60)
class InProcessEngineTest {

    private static final Duration LONG = Duration.ofSeconds(20);

    private final List<String> losses = new CopyOnWriteArrayList<>();

    private final InMemoryLockStore store = new InMemoryLockStore("app:");

    private final LockEngine locks = new LockEngine(this.store, Duration.ofSeconds(2),
            (key, token, fence, detection) -> this.losses.add(key + " " + fence + " " + detection));

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        this.threads.shutdownNow();
        this.locks.close();
    }

    @Test
    void threadsOnSingleAndMultiKeyRequestsNeverOverlapAndEachKeysTokensGrow() throws Exception {
        List<String> names = List.of("a", "b", "c");
        Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        Map<String, List<Long>> fences = new ConcurrentHashMap<>();
        for (String name : names) {
            inside.put(name, new AtomicInteger());
            fences.put(name, new CopyOnWriteArrayList<>());
        }
        AtomicInteger overlaps = new AtomicInteger();
        int workers = 6;
        CyclicBarrier start = new CyclicBarrier(workers);
        List<Future<Integer>> futures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            futures.add(this.threads.submit(() -> {
                start.await();
                int rounds = 0;
                for (int r = 0; r < 150; r++) {
                    // One, two or three keys, in any order: the engine sorts them, so nobody deadlocks.
                    List<String> keys = new ArrayList<>(names);
                    java.util.Collections.shuffle(keys);
                    keys = keys.subList(0, 1 + ThreadLocalRandom.current().nextInt(names.size()));
                    try (LockHandle handle = this.locks.acquire(LockRequest.of(keys, LONG, null))) {
                        for (String key : keys) {
                            if (inside.get(key).incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                        }
                        for (String key : keys) {
                            fences.get(key).add(fenceOf(handle, "app:" + key));
                        }
                        Thread.yield();
                        for (String key : keys) {
                            inside.get(key).decrementAndGet();
                        }
                    }
                    rounds++;
                }
                return rounds;
            }));
        }
        int rounds = 0;
        for (Future<Integer> future : futures) {
            rounds += future.get();
        }
        assertThat(rounds).isEqualTo(workers * 150);
        assertThat(overlaps).hasValue(0);
        for (String name : names) {
            // Recorded inside the section, so in the order the holders came: each larger than the one before.
            assertThat(fences.get(name)).isSorted().doesNotHaveDuplicates();
        }
        assertNothingLocked(names);
    }

    @Test
    void aRenewedLockOutlivesManyLeasesWhileAnotherThreadWaitsInVain() throws Exception {
        try (LockHandle held = this.locks.acquire(LockRequest.of("job", Duration.ZERO, null))) {
            long start = System.nanoTime();
            // Waits 3.5 renewed leases (2 s each, renewed every 667 ms): without renewal the key would pass to it
            // after the first.
            Future<LockHandle> other = this.threads.submit(() -> this.locks.acquire(LockRequest.of("job",
                    Duration.ofMillis(7000), null)));
            assertThatThrownBy(other::get).cause().isInstanceOf(LockNotAcquiredException.class);
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(7000).toNanos());
            assertThat(held.isHeld()).isTrue();
            assertThat(held.verifyHeld()).isTrue();
            LockEngineState state = this.locks.state();
            assertThat(state.renewal().failedRounds()).isZero();
            assertThat(state.renewal().lastSuccess()).isNotNull();
            assertThat(state.held()).singleElement().satisfies((key) -> {
                assertThat(key.key()).isEqualTo("app:job");
                assertThat(key.renewed()).isTrue();
                assertThat(key.fencingToken()).isEqualTo(held.fencingToken());
            });
        }
        assertThat(this.losses).isEmpty();
        assertNothingLocked(List.of("job"));
    }

    @Test
    void aFixedLeaseThatRanOutIsFoundLostAtItsReleaseAndSignalledOnce() throws Exception {
        LockHandle first = this.locks.acquire(LockRequest.of("job", Duration.ZERO, Duration.ofMillis(50)));
        try (LockHandle next = this.threads.submit(() -> this.locks.acquire(LockRequest.of("job", LONG, null)))
            .get()) {
            assertThat(first.isHeld()).isFalse();
            assertThat(first.isLost()).isFalse();
            first.close();
            assertThat(first.isLost()).isTrue();
            first.close();
            assertThat(this.losses).containsExactly("app:job " + first.fencingToken() + " " + LockLossDetection.RELEASE);
            assertThat(next.isHeld()).isTrue();
            assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
        }
    }

    @Test
    void aCheckFindsALockWhoseLeaseRanOutLost() {
        LockHandle handle = this.locks.acquire(LockRequest.of("job", Duration.ZERO, Duration.ofMillis(30)));
        await().until(() -> this.store.state("app:job") == KeySlot.State.FREE);
        assertThat(handle.verifyHeld()).isFalse();
        assertThat(this.losses).containsExactly("app:job " + handle.fencingToken() + " "
                + LockLossDetection.COMMIT_CHECK);
        handle.close();
        assertThat(this.losses).hasSize(1);
    }

    @Test
    void waitsThatTimeOutOrAreInterruptedLeaveNothingLocked() throws Exception {
        List<String> names = List.of("a", "b");
        LockHandle blocker = this.locks.acquire(LockRequest.of("b", Duration.ZERO, null));
        List<Thread> waiters = new ArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        for (int i = 0; i < 6; i++) {
            boolean interrupted = i % 2 == 0;
            Thread waiter = new Thread(() -> {
                // Takes "a", then waits for "b": interrupted, or until its wait time ends.
                try {
                    this.locks.acquire(LockRequest.of(names, interrupted ? LONG : Duration.ofMillis(200), null));
                }
                catch (LockException ex) {
                    failures.incrementAndGet();
                }
            });
            waiters.add(waiter);
            waiter.start();
        }
        await().until(() -> this.locks.state().waiting().values().stream().mapToInt(Integer::intValue).sum() >= 1);
        for (int i = 0; i < waiters.size(); i += 2) {
            Thread waiter = waiters.get(i);
            // Interrupted wherever it is: waiting for "a", waiting for "b", or about to ask.
            waiter.interrupt();
        }
        for (Thread waiter : waiters) {
            waiter.join();
        }
        assertThat(failures).hasValue(waiters.size());
        blocker.close();
        assertNothingLocked(names);
        assertThat(this.locks.state().held()).isEmpty();
    }

    @Test
    void theSnapshotShowsNestedHoldsWaitersAndKeptKeys() throws Exception {
        LockHandle outer = this.locks.acquire(LockRequest.of("job", Duration.ZERO, null).holdAtLeast(LONG));
        LockHandle inner = this.locks.acquire(LockRequest.of("job", Duration.ZERO, null));
        Future<?> waiter = this.threads.submit(() -> this.locks.acquire(LockRequest.of("job", Duration.ofMillis(300),
                null)));
        await().until(() -> this.locks.state().waiting().equals(Map.of("app:job", 1)));
        assertThat(this.locks.state().held()).singleElement().satisfies((key) -> {
            assertThat(key.holds()).isEqualTo(2);
            assertThat(key.thread()).isEqualTo(Thread.currentThread().getName());
        });
        assertThatThrownBy(waiter::get).cause().isInstanceOf(LockNotAcquiredException.class);
        inner.close();
        outer.close();
        LockEngineState state = this.locks.state();
        assertThat(state.held()).isEmpty();
        assertThat(state.waiting()).isEmpty();
        assertThat(state.kept()).singleElement().satisfies((key) -> {
            assertThat(key.key()).isEqualTo("app:job");
            assertThat(key.fencingToken()).isEqualTo(outer.fencingToken());
        });
        assertThat(this.store.state("app:job")).isEqualTo(KeySlot.State.KEPT);
    }

    @Test
    void theHolderViewNamesThisInstance() {
        InstanceInfo self = InstanceInfo.current("orders");
        this.locks.publishInstance(self);
        try (LockHandle held = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null))) {
            LockInspection inspection = this.locks.inspect("sku:1");
            assertThat(inspection.key()).isEqualTo("app:sku:1");
            assertThat(inspection.state()).isEqualTo(LockInspection.State.HELD);
            assertThat(inspection.holder()).isEqualTo(LockInspection.Holder.of(self));
            assertThat(inspection.fencingToken()).isEqualTo(held.fencingToken());
        }
        assertThat(this.locks.inspect("sku:1").state()).isEqualTo(LockInspection.State.FREE);
    }

    @Test
    void aClosedProviderTakesNothingMore() {
        this.locks.close();
        assertThatThrownBy(() -> this.locks.acquire(LockRequest.of("job", Duration.ZERO, null)))
            .isInstanceOf(LockException.class).hasMessageContaining("closed");
    }

    private void assertNothingLocked(List<String> names) {
        for (String name : names) {
            assertThat(this.store.state("app:" + name)).as(name).isEqualTo(KeySlot.State.FREE);
        }
        assertThat(this.locks.state().waiting()).isEmpty();
    }

    /** The fencing token of one key of a (possibly multi-key) handle, read from the snapshot of held keys. */
    private long fenceOf(LockHandle handle, String key) {
        if (handle.key().equals(key)) {
            return handle.fencingToken();
        }
        AtomicLong fence = new AtomicLong(-1);
        this.locks.state().held().stream().filter((held) -> held.key().equals(key))
            .forEach((held) -> fence.set(held.fencingToken()));
        return fence.get();
    }
}
