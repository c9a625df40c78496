package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.redislock.LockException;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.StoreLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import io.github.redislock.testsupport.LineIndependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The transitions of {@link InMemoryLockStore}'s state machine, one per test, with real threads. */
@LineIndependent
@Timeout(30)
class InMemoryLockStoreTest {

    private static final long LONG_MILLIS = 20_000;

    private final InMemoryLockStore store = new InMemoryLockStore("t:");

    private final LockTokens tokens = new LockTokens();

    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        this.threads.shutdownNow();
        this.store.close();
    }

    @Test
    void aFreeKeyIsTakenWithTheFirstFencingToken() {
        StoreLock lock = take("k", LONG_MILLIS, 0);
        assertThat(lock.key()).isEqualTo("t:k");
        assertThat(lock.fencingToken()).isEqualTo(1);
        assertThat(this.store.state("t:k")).isEqualTo(KeySlot.State.HELD);
    }

    @Test
    void aHeldKeyRefusesAnotherTokenUntilItsDeadlineAndLeavesNoWaiterBehind() throws Exception {
        take("k", LONG_MILLIS, 0);
        long start = System.nanoTime();
        assertThat(this.threads.submit(() -> take("k", LONG_MILLIS, 100)).get()).isNull();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(this.store.waiting()).isEmpty();
        assertThat(this.store.state("t:k")).isEqualTo(KeySlot.State.HELD);
    }

    @Test
    void onlyTheHoldersTokenAndFenceReleaseTheKey() {
        StoreLock held = take("k", LONG_MILLIS, 0);
        InMemoryLock otherToken = new InMemoryLock(this.store, "t:k", this.tokens.next(), held.fencingToken(), 0);
        InMemoryLock otherFence = new InMemoryLock(this.store, "t:k", held.token(), held.fencingToken() + 1, 0);
        assertThat(otherToken.release(0)).isFalse();
        assertThat(otherFence.release(0)).isFalse();
        assertThat(otherToken.verify()).isFalse();
        assertThat(this.store.extend(List.of(otherToken, otherFence), LONG_MILLIS))
            .containsExactly(Extension.NOT_HELD, Extension.NOT_HELD);
        assertThat(this.store.state("t:k")).isEqualTo(KeySlot.State.HELD);
        assertThat(held.verify()).isTrue();
        assertThat(held.release(0)).isTrue();
        assertThat(this.store.state("t:k")).isEqualTo(KeySlot.State.FREE);
        assertThat(held.release(0)).as("a second release finds the key no longer its own").isFalse();
    }

    @Test
    void anExtensionByTheHolderMovesTheEndOfTheLeaseToTheNewLeaseFromNow() throws Exception {
        StoreLock held = take("k", 2000, 0);
        long extendedAt = System.nanoTime();
        // Well within the first lease (2 s), so that it finds the key still held.
        assertThat(this.store.extend(List.of(held), 3000)).containsExactly(Extension.EXTENDED);
        StoreLock next = this.threads.submit(() -> take("k", LONG_MILLIS, LONG_MILLIS)).get();
        // Not before the extended lease ended: later than the first lease's end.
        assertThat(System.nanoTime() - extendedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(3000));
        assertThat(next.fencingToken()).isEqualTo(2);
        assertThat(held.verify()).isFalse();
    }

    @Test
    void aWaiterFirstInLineFollowsAnExtensionThatEndsTheLeaseSooner() throws Exception {
        StoreLock held = take("k", LONG_MILLIS, 0);
        Future<StoreLock> next = this.threads.submit(() -> take("k", LONG_MILLIS, LONG_MILLIS));
        await().until(() -> this.store.waiting().getOrDefault("t:k", 0) == 1);
        long extendedAt = System.nanoTime();
        assertThat(this.store.extend(List.of(held), 100)).containsExactly(Extension.EXTENDED);
        // Woken by the extension, it waits for the new end rather than the old one (20 s later, past the timeout).
        assertThat(next.get().fencingToken()).isEqualTo(2);
        assertThat(System.nanoTime() - extendedAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void aLeaseThatRunsOutFreesTheKeyAndItsOldHolderCanNoLongerTouchIt() throws Exception {
        long start = System.nanoTime();
        StoreLock old = take("k", 50, 0);
        StoreLock next = this.threads.submit(() -> take("k", LONG_MILLIS, LONG_MILLIS)).get();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(next.fencingToken()).isGreaterThan(old.fencingToken());
        assertThat(old.verify()).isFalse();
        assertThat(this.store.extend(List.of(old, next), LONG_MILLIS))
            .containsExactly(Extension.NOT_HELD, Extension.EXTENDED);
        assertThat(old.release(0)).isFalse();
        assertThat(next.verify()).as("the old holder's release left the new holder alone").isTrue();
    }

    @Test
    void aKeptKeyIsTakenByNobodyNotEvenItsHoldersTokenUntilTheKeepEnds() throws Exception {
        StoreLock held = take("k", LONG_MILLIS, 0);
        long keptAt = System.nanoTime();
        assertThat(held.release(200)).isTrue();
        assertThat(this.store.state("t:k")).isEqualTo(KeySlot.State.KEPT);
        assertThat(held.verify()).isFalse();
        assertThat(this.store.take("t:k", held.token(), LONG_MILLIS, false, System.nanoTime())).isNull();
        StoreLock next = this.threads.submit(() -> take("k", LONG_MILLIS, LONG_MILLIS)).get();
        assertThat(System.nanoTime() - keptAt).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
        assertThat(next.fencingToken()).isEqualTo(2);
    }

    @Test
    void fencingTokensKeepCountingAcrossTheKeyBeingFreeAndArePerKey() {
        for (long expected = 1; expected <= 5; expected++) {
            StoreLock lock = take("k", LONG_MILLIS, 0);
            assertThat(lock.fencingToken()).isEqualTo(expected);
            assertThat(lock.release(0)).isTrue();
        }
        assertThat(take("other", LONG_MILLIS, 0).fencingToken()).isEqualTo(1);
    }

    @Test
    void waitingTakesGetTheKeyInTheOrderTheyCame() throws Exception {
        StoreLock held = take("k", LONG_MILLIS, 0);
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicBoolean overlap = new AtomicBoolean();
        AtomicReference<Integer> inside = new AtomicReference<>();
        int waiters = 5;
        Future<?>[] done = new Future<?>[waiters];
        for (int i = 0; i < waiters; i++) {
            int me = i;
            done[i] = this.threads.submit(() -> {
                StoreLock lock = take("k", LONG_MILLIS, LONG_MILLIS);
                if (!inside.compareAndSet(null, me)) {
                    overlap.set(true);
                }
                order.add(me);
                inside.set(null);
                assertThat(lock.release(0)).isTrue();
                return null;
            });
            // The next one comes only once this one is in line.
            int inLine = i + 1;
            await().until(() -> this.store.waiting().getOrDefault("t:k", 0) == inLine);
        }
        assertThat(held.release(0)).isTrue();
        for (Future<?> future : done) {
            future.get();
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(overlap).isFalse();
        assertThat(this.store.waiting()).isEmpty();
    }

    @Test
    void theFirstInLineLeavingWakesTheNextOneToWatchTheLease() throws Exception {
        long start = System.nanoTime();
        // Never released: only the first in line watches when its lease ends.
        take("k", 3000, 0);
        AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        Thread first = new Thread(() -> {
            try {
                take("k", LONG_MILLIS, LONG_MILLIS);
            }
            catch (Throwable ex) {
                firstFailure.set(ex);
            }
        });
        first.start();
        await().until(() -> this.store.waiting().getOrDefault("t:k", 0) == 1);
        Future<StoreLock> second = this.threads.submit(() -> take("k", LONG_MILLIS, LONG_MILLIS));
        await().until(() -> this.store.waiting().getOrDefault("t:k", 0) == 2);
        // It gives up (an interrupt: a deadline would race with the second joining the line).
        first.interrupt();
        first.join();
        assertThat(firstFailure.get()).isInstanceOf(LockException.class);
        assertThat(System.nanoTime() - start).as("the line formed within the lease").isLessThan(
                TimeUnit.MILLISECONDS.toNanos(3000));
        assertThat(this.store.waiting()).isEqualTo(Map.of("t:k", 1));
        // Unwoken, it would sleep until its deadline (20 s) and come back empty.
        assertThat(second.get().fencingToken()).isEqualTo(2);
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(LONG_MILLIS));
    }

    @Test
    void anInterruptedTakeThrowsKeepsItsInterruptAndLeavesTheLine() throws Exception {
        StoreLock held = take("k", LONG_MILLIS, 0);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            try {
                take("k", LONG_MILLIS, LONG_MILLIS);
            }
            catch (Throwable ex) {
                failure.set(ex);
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        await().until(() -> this.store.waiting().getOrDefault("t:k", 0) == 1);
        waiter.interrupt();
        waiter.join();
        assertThat(failure.get()).isInstanceOf(LockException.class).hasMessageContaining("Interrupted");
        assertThat(stillInterrupted).isTrue();
        assertThat(this.store.waiting()).isEmpty();
        assertThat(held.release(0)).isTrue();
        assertThat(take("k", LONG_MILLIS, 0).fencingToken()).isEqualTo(2);
    }

    @Test
    void closingTheStoreFailsWaitingTakesAndLaterOnes() throws Exception {
        take("k", LONG_MILLIS, 0);
        Future<StoreLock> waiting = this.threads.submit(() -> take("k", LONG_MILLIS, LONG_MILLIS));
        await().until(() -> this.store.waiting().getOrDefault("t:k", 0) == 1);
        this.store.close();
        assertThatThrownBy(waiting::get).cause().isInstanceOf(LockException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> take("other", LONG_MILLIS, 0)).isInstanceOf(LockException.class);
        assertThat(this.store.waiting()).isEmpty();
    }

    @Test
    void inspectionNamesThePublishedInstanceAndTheKeysState() throws Exception {
        InstanceInfo self = new InstanceInfo("orders", LockTokens.randomId(), "host", 42);
        this.store.publishInstance(self, this.tokens.id());
        assertThat(this.store.inspect("t:k").state()).isEqualTo(LockInspection.State.FREE);
        StoreLock held = take("k", LONG_MILLIS, 0);
        LockInspection inspection = this.store.inspect("t:k");
        assertThat(inspection.state()).isEqualTo(LockInspection.State.HELD);
        assertThat(inspection.holder()).isEqualTo(LockInspection.Holder.of(self));
        assertThat(inspection.fencingToken()).isEqualTo(held.fencingToken());
        assertThat(inspection.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofMillis(LONG_MILLIS));
        // A token of another engine, whose instance nobody published here.
        this.store.take("t:u", new LockTokens().next(), LONG_MILLIS, false, System.nanoTime());
        assertThat(this.store.inspect("t:u").holder()).isEqualTo(LockInspection.Holder.UNKNOWN);
        assertThat(held.release(LONG_MILLIS)).isTrue();
        assertThat(this.store.inspect("t:k").state()).isEqualTo(LockInspection.State.KEPT);
    }

    @Test
    void keysFollowTheRedisStoresRules() {
        assertThat(this.store.key("sku:1")).isEqualTo("t:sku:1");
        assertThatThrownBy(() -> this.store.key("a~lock~b")).isInstanceOf(LockException.class);
        assertThatThrownBy(() -> this.store.key("x".repeat(600))).isInstanceOf(LockException.class);
    }

    private StoreLock take(String name, long leaseMillis, long waitMillis) {
        return this.store.take(this.store.key(name), this.tokens.next(), leaseMillis, false,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis));
    }
}
