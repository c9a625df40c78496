package io.github.redislock.engine;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's own transitions ({@link Entry}'s HELD(n) and RELEASED, multi-key TAKING and UNDONE) over an
 * in-process store that records every take and release, so that what reaches the store is counted, not guessed.
 * What a real store makes of them is in the stores' tests ({@code RedlockEngineTest}).
 */
class LockEngineTest {

    private final RecordingStore store = new RecordingStore();

    private final LockEngine engine = new LockEngine(this.store, Duration.ofSeconds(30));

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
        CompletableFuture.runAsync(inner::close).get(10, TimeUnit.SECONDS);
        inner.close();
        assertThat(this.store.releases).isEmpty();
        CompletableFuture.runAsync(outer::close).get(10, TimeUnit.SECONDS);
        outer.close();
        assertThat(this.store.releases).containsExactly("k kept 0");
    }

    @Test
    void anotherThreadGoesToTheStore() throws Exception {
        try (LockHandle held = this.engine.acquire(request("k"))) {
            CompletableFuture<LockHandle> other = CompletableFuture
                .supplyAsync(() -> this.engine.acquire(request("k")));
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
        assertThat(this.store.holders()).containsOnlyKeys("b");
    }

    @Test
    void aStoreFailingWithAnErrorUndoesWhatWasTaken() {
        this.store.failOn("b");
        assertThatThrownBy(() -> this.engine.acquire(LockRequest.of(List.of("a", "b"), Duration.ZERO, null)))
            .isInstanceOf(OutOfMemoryError.class);
        assertThat(this.store.releases).containsExactly("a kept 0");
        assertThat(this.store.holders()).isEmpty();
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

    /**
     * Keys in a map, no waiting (a taken key is refused at once, whatever the deadline); records what the engine
     * asks of it.
     */
    private static final class RecordingStore implements LockStore {

        final List<String> takes = new CopyOnWriteArrayList<>();

        final List<String> releases = new CopyOnWriteArrayList<>();

        private final Map<String, Held> keys = new HashMap<>();

        private long fences;

        private @Nullable String failing;

        @Override
        public String key(String name) {
            return name;
        }

        @Override
        public synchronized @Nullable StoreLock take(String key, long leaseMillis, boolean renewed, long deadline) {
            this.takes.add(key);
            if (key.equals(this.failing)) {
                throw new OutOfMemoryError("planted");
            }
            if (this.keys.containsKey(key)) {
                return null;
            }
            Held held = new Held(key, ++this.fences);
            this.keys.put(key, held);
            return held;
        }

        synchronized void takeForSomeoneElse(String key) {
            this.keys.put(key, new Held(key, ++this.fences));
        }

        synchronized void lose(String key) {
            this.keys.remove(key).lost = true;
        }

        synchronized void failOn(String key) {
            this.failing = key;
        }

        synchronized Map<String, Held> holders() {
            return Map.copyOf(this.keys);
        }

        private synchronized void release(Held held, long keepMillis) {
            this.releases.add(held.key + " kept " + keepMillis);
            this.keys.remove(held.key, held);
        }

        private final class Held implements StoreLock {

            private final String key;

            private final long fence;

            private volatile boolean lost;

            private volatile boolean released;

            Held(String key, long fence) {
                this.key = key;
                this.fence = fence;
            }

            @Override
            public String key() {
                return this.key;
            }

            @Override
            public String token() {
                return "t:" + this.fence;
            }

            @Override
            public long fencingToken() {
                return this.fence;
            }

            @Override
            public boolean isHeld() {
                return !this.lost && !this.released;
            }

            @Override
            public boolean isLost() {
                return this.lost;
            }

            @Override
            public boolean verifyHeld() {
                return isHeld();
            }

            @Override
            public void release(long keepMillis) {
                assertThat(this.released).as("released once").isFalse();
                this.released = true;
                RecordingStore.this.release(this, keepMillis);
            }
        }
    }
}
