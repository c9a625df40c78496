package io.github.redislock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.ManualScheduler;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;
import io.github.redislock.testsupport.TaskThreads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's own transitions ({@link Entry}'s HELD(n) and RELEASED, multi-key TAKING and UNDONE) over an
 * in-memory store that records every take and release ({@link ScriptedStore}), so that what reaches the store is
 * counted, not guessed. Leases and losses are in {@link RenewalAndLossTest}; what every real store makes of them is
 * proven by the store kit ({@code LockStoreContract}), what is a store's own in its tests.
 */
@LineIndependent
class LockEngineTest {

    private final ScriptedStore store = ScriptedStore.withLeases();

    private final LockEngine engine = new LockEngine(this.store, Duration.ofSeconds(30), LockLossListener.NONE,
            new ManualScheduler());

    private static LockRequest request(String key) {
        return LockRequest.of(key, Duration.ZERO, null);
    }

    @Test
    void enteringAgainAndNestedReleasesNeverReachTheStore() {
        LockHandle outer = this.engine.acquire(request("k"));
        LockHandle inner = this.engine.acquire(request("k"));
        LockHandle innermost = this.engine.acquire(request("k"));
        assertThat(this.store.takes).containsExactly("k");
        innermost.close();
        inner.close();
        assertThat(this.store.releases).isEmpty();
        assertThat(outer.isHeld()).isTrue();
        assertThat(inner.isHeld()).isFalse();
        outer.close();
        assertThat(this.store.releases).containsExactly("k kept 0");
    }

    @Test
    void aHandleClosedTwiceOrFromAnotherThreadEndsOneAcquisition() throws Exception {
        LockHandle outer = this.engine.acquire(request("k"));
        LockHandle inner = this.engine.acquire(request("k"));
        CompletableFuture.runAsync(inner::close, TaskThreads.own()).get(10, TimeUnit.SECONDS);
        inner.close();
        assertThat(this.store.releases).isEmpty();
        CompletableFuture.runAsync(outer::close, TaskThreads.own()).get(10, TimeUnit.SECONDS);
        outer.close();
        assertThat(this.store.releases).containsExactly("k kept 0");
    }

    @Test
    void anotherThreadGoesToTheStore() throws Exception {
        try (LockHandle held = this.engine.acquire(request("k"))) {
            CompletableFuture<LockHandle> other = CompletableFuture
                .supplyAsync(() -> this.engine.acquire(request("k")), TaskThreads.own());
            assertThatThrownBy(() -> other.get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(this.store.takes).containsExactly("k", "k");
            assertThat(held.isHeld()).isTrue();
        }
    }

    @Test
    void aNonReentrantRequestNeitherEntersNorIsEntered() {
        try (LockHandle held = this.engine.acquire(request("k"))) {
            assertThatThrownBy(() -> this.engine.acquire(request("k").nonReentrant()))
                .isInstanceOf(LockNotAcquiredException.class);
        }
        try (LockHandle asynchronous = this.engine.acquire(request("k").nonReentrant())) {
            assertThatThrownBy(() -> this.engine.acquire(request("k"))).isInstanceOf(LockNotAcquiredException.class);
        }
        assertThat(this.store.takes).containsExactly("k", "k", "k", "k");
    }

    @Test
    void aLockFoundLostIsNotEnteredAgain() {
        LockHandle lost = this.engine.acquire(request("k"));
        this.store.lose("k");
        this.engine.renewNow();
        assertThat(lost.isLost()).isTrue();
        try (LockHandle next = this.engine.acquire(request("k"))) {
            assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
            assertThat(this.store.takes).containsExactly("k", "k");
            lost.close();
            // The lost lock's release leaves the new holder's entry in place: it is entered again.
            this.engine.acquire(request("k")).close();
            assertThat(this.store.takes).hasSize(2);
            assertThat(next.isHeld()).isTrue();
        }
    }

    @Test
    void theOutermostMomentCountsAndTheLongestMinimumApplies() {
        try (LockHandle outer = this.engine.acquire(request("k").holdAtLeast(Duration.ofSeconds(1)))) {
            this.engine.acquire(request("k").holdAtLeast(Duration.ofSeconds(20))).close();
            this.engine.acquire(request("k").holdAtLeast(Duration.ofSeconds(5))).close();
        }
        assertThat(this.store.releases).hasSize(1);
        long kept = Long.parseLong(this.store.releases.get(0).substring("k kept ".length()));
        assertThat(kept).isBetween(1L, 20_000L).isGreaterThan(5_000L);
    }

    @Test
    void severalKeysAreTakenInOrderAndReleasedInReverse() {
        LockHandle all = this.engine.acquire(LockRequest.of(List.of("c", "a", "b"), Duration.ZERO, null));
        assertThat(all.key()).isEqualTo("a,b,c");
        assertThat(this.store.takes).containsExactly("a", "b", "c");
        all.close();
        assertThat(this.store.releases).containsExactly("c kept 0", "b kept 0", "a kept 0");
    }

    @Test
    void aBusyKeyUndoesWhatWasTaken() {
        this.store.takeForSomeoneElse("b");
        assertThatThrownBy(() -> this.engine.acquire(LockRequest.of(List.of("a", "b", "c"), Duration.ZERO, null)))
            .isInstanceOfSatisfying(LockNotAcquiredException.class,
                    (ex) -> assertThat(ex.getKeys()).containsExactly("a", "b", "c"));
        assertThat(this.store.takes).containsExactly("a", "b");
        assertThat(this.store.releases).containsExactly("a kept 0");
        assertThat(this.store.holders("a", "b", "c")).containsOnlyKeys("b");
    }

    @Test
    void aStoreFailingWithAnErrorUndoesWhatWasTaken() {
        this.store.failOn("b");
        assertThatThrownBy(() -> this.engine.acquire(LockRequest.of(List.of("a", "b"), Duration.ZERO, null)))
            .isInstanceOf(OutOfMemoryError.class);
        assertThat(this.store.releases).containsExactly("a kept 0");
        assertThat(this.store.holders("a", "b")).isEmpty();
        // And nothing of it is entered again.
        this.engine.acquire(request("a")).close();
        assertThat(this.store.takes).containsExactly("a", "b", "a");
    }

    @Test
    void anInterruptedThreadSendsNothing() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> this.engine.acquire(request("k"))).isInstanceOf(LockException.class)
                .hasMessageContaining("Interrupted");
        }
        finally {
            Thread.interrupted();
        }
        assertThat(this.store.takes).isEmpty();
    }
}
