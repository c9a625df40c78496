package io.github.redislock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@Timeout(30)
class InProcessLockProviderTest {

    private static final Duration LONG = Duration.ofSeconds(20);

    private final InMemoryLockStore store = new InMemoryLockStore("app:");

    /** What {@code new InProcessLockProvider("app:")} builds, over a store the test can read. */
    private final LockEngine locks = new LockEngine(this.store, Duration.ofSeconds(30), LockLossListener.NONE);

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        this.threads.shutdownNow();
    }

    @Test
    void threadsNeverOverlapInTheCriticalSection() throws Exception {
        int workers = 8;
        int rounds = 200;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        CyclicBarrier start = new CyclicBarrier(workers);
        List<Future<?>> futures = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            futures.add(this.threads.submit(() -> {
                start.await();
                for (int r = 0; r < rounds; r++) {
                    try (LockHandle handle = this.locks.acquire(LockRequest.of("sku:1", LONG, null))) {
                        if (inside.incrementAndGet() != 1) {
                            overlaps.incrementAndGet();
                        }
                        Thread.yield();
                        inside.decrementAndGet();
                        done.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : futures) {
            future.get();
        }
        assertThat(overlaps).hasValue(0);
        assertThat(done).hasValue(workers * rounds);
        assertThat(held("app:sku:1")).isFalse();
    }

    @Test
    void anotherThreadGivesUpAfterTheWaitTimeAndHoldsNothing() throws Exception {
        try (LockHandle held = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null))) {
            Future<?> other = this.threads.submit(() -> this.locks.acquire(LockRequest.of("sku:1",
                    Duration.ofMillis(50), null)));
            assertThatThrownBy(other::get).cause().isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("app:sku:1");
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(held("app:sku:1")).isFalse();
    }

    @Test
    void aWaitingThreadGetsTheLockWhenItIsReleased() throws Exception {
        LockHandle first = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null));
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> second = this.threads.submit(() -> {
            waiting.countDown();
            try (LockHandle handle = this.locks.acquire(LockRequest.of("sku:1", LONG, null))) {
                return handle.fencingToken();
            }
        });
        waiting.await();
        long firstFence = first.fencingToken();
        first.close();
        assertThat(second.get()).isGreaterThan(firstFence);
    }

    @Test
    void theHoldingThreadTakesTheKeyAgainAndOnlyTheOutermostReleaseFreesIt() throws Exception {
        LockHandle outer = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null));
        LockHandle inner = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null));
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        inner.close();
        assertThat(outer.isHeld()).isTrue();
        assertThat(inner.isHeld()).isFalse();
        Future<?> other = this.threads.submit(() -> this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null)));
        assertThatThrownBy(other::get).cause().isInstanceOf(LockNotAcquiredException.class);
        outer.close();
        assertThat(held("app:sku:1")).isFalse();
    }

    @Test
    void aLockForAsynchronousWorkIsNeitherEnteredByNorEntersItsThreadsLocks() {
        LockHandle async = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null).nonReentrant());
        assertThatThrownBy(() -> this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null)))
            .isInstanceOf(LockNotAcquiredException.class);
        async.close();
        LockHandle held = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null));
        assertThatThrownBy(() -> this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null).nonReentrant()))
            .isInstanceOf(LockNotAcquiredException.class);
        held.close();
    }

    @Test
    void fencingTokensGrowWithEveryAcquisitionOfAKey() {
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            try (LockHandle handle = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null))) {
                assertThat(handle.fencingToken()).isGreaterThan(previous);
                previous = handle.fencingToken();
            }
        }
    }

    @Test
    void aFixedLeaseEndsAndTheOldHandleIsLost() throws Exception {
        LockHandle first = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, Duration.ofMillis(50)));
        // Waits on the lock itself, which frees when the lease ends.
        Future<LockHandle> second = this.threads.submit(() -> this.locks.acquire(LockRequest.of("sku:1", LONG,
                null)));
        LockHandle taken = second.get(20, TimeUnit.SECONDS);
        assertThat(taken.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(first.isHeld()).isFalse();
        // As on Redis: known lost once the store is asked (a check, or the release), not before.
        assertThat(first.isLost()).isFalse();
        assertThat(first.verifyHeld()).isFalse();
        assertThat(first.isLost()).isTrue();
        first.close();
        assertThat(taken.isHeld()).as("the old holder's release leaves the new holder alone").isTrue();
        this.threads.submit(taken::close).get();
    }

    @Test
    void severalKeysAreTakenAllOrNothing() throws Exception {
        LockHandle b = this.threads.submit(() -> this.locks.acquire(LockRequest.of("b", Duration.ZERO, null))).get();
        assertThatThrownBy(() -> this.locks.acquire(LockRequest.of(List.of("a", "b"), Duration.ZERO, null)))
                .isInstanceOf(LockNotAcquiredException.class);
        assertThat(held("app:a")).as("the first key is given back").isFalse();
        this.threads.submit(b::close).get();
        try (LockHandle both = this.locks.acquire(LockRequest.of(List.of("b", "a"), Duration.ZERO, null))) {
            assertThat(both.key()).isEqualTo("app:a,app:b");
            assertThat(held("app:a")).isTrue();
            assertThat(held("app:b")).isTrue();
        }
        assertThat(held("app:b")).isFalse();
    }

    @Test
    void anInterruptedWaitThrowsAndGivesBackWhatItTook() throws Exception {
        LockHandle held = this.locks.acquire(LockRequest.of("sku:1", Duration.ZERO, null));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                this.locks.acquire(LockRequest.of(List.of("a", "sku:1"), LONG, null));
            }
            catch (Throwable ex) {
                failure.set(ex);
            }
        });
        waiter.start();
        // It has taken "a" and waits for "sku:1".
        await().until(() -> held("app:a"));
        waiter.interrupt();
        waiter.join();
        assertThat(failure.get()).isInstanceOf(LockException.class).hasMessageContaining("Interrupted");
        assertThat(held("app:a")).isFalse();
        held.close();
    }

    @Test
    void aKeyClosedBeforeItsHoldAtLeastStaysTakenByNobodyUntilTheMinimumHasPassed() throws Exception {
        Duration hold = Duration.ofMillis(300);
        // The minimum counts from when the key was taken, within the call (as in production), not from its return.
        long acquired = System.nanoTime();
        LockHandle first = this.locks.acquire(LockRequest.of("job", Duration.ZERO, null).holdAtLeast(hold));
        long firstFence = first.fencingToken();
        first.close();
        LockAssertions.assertThatLock(this.store, "app:job").isKept().isHeld();
        // Not even the thread that held it gets in (no reentrancy into a kept key).
        assertThatThrownBy(() -> this.locks.acquire(LockRequest.of("job", Duration.ZERO, null)))
                .isInstanceOf(LockNotAcquiredException.class);
        try (LockHandle next = this.threads.submit(() -> this.locks.acquire(LockRequest.of("job", LONG, null)))
                .get(10, TimeUnit.SECONDS)) {
            assertThat(System.nanoTime() - acquired).isGreaterThanOrEqualTo(hold.toNanos());
            assertThat(next.fencingToken()).isGreaterThan(firstFence);
            assertThat(first.isLost()).isFalse();
        }
    }

    @Test
    void aKeyClosedAfterItsHoldAtLeastIsFreeAtOnce() {
        Duration hold = Duration.ofMillis(50);
        LockHandle handle = this.locks.acquire(LockRequest.of("job", Duration.ZERO, null).holdAtLeast(hold));
        long acquired = System.nanoTime();
        await().atMost(hold.multipliedBy(20)).pollInterval(Duration.ofMillis(1))
                .until(() -> System.nanoTime() - acquired >= hold.toNanos());
        handle.close();
        LockAssertions.assertThatLock(this.store, "app:job").isFree();
    }

    /** Whether the store holds the key now, or keeps it for holdAtLeast. */
    private boolean held(String key) {
        return this.store.state(key) != KeySlot.State.FREE;
    }
}
