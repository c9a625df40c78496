package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

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
 * What {@link InProcessLockProvider} adds to the engine over the in-memory store: a commit check of a lease run
 * out, the endpoint's snapshot with nesting, waiters and kept keys, its own instance in the holder view, and a
 * closed provider. What every store promises (mutual exclusion, fencing, multi-key, waits that end, renewal,
 * fixed leases, losses) is proven on the in-memory store by the store kit ({@code InMemoryStoreContractTest}).
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
}
