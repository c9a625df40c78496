package io.github.redislock.engine;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.ManualScheduler;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The engine never hands out a lock that came back from the store with its lease (nearly) run out by this JVM's
 * clock ({@link Acquirer}): each transition of that rule, over the in-memory store with takes made late
 * ({@link ScriptedStore}).
 * What a real Redis makes of it is in {@code LateArrivalTest}.
 */
@LineIndependent
class FreshLockTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final ScriptedStore store = ScriptedStore.withLeases();

    private final List<String> lost = new CopyOnWriteArrayList<>();

    private final LockEngine engine = new LockEngine(this.store, LEASE, (key, token, fence, detection) -> this.lost
        .add(key + " " + fence + " " + detection), new ManualScheduler());

    /**
     * TAKING to RETAKING: a stale lock is released, never entered, and the key taken again (once even without
     * waiting).
     */
    @Test
    void aLockThatComesBackStaleIsReleasedAndTakenAgain() {
        this.store.takeNextLateBy(LEASE);
        try (LockHandle handle = this.engine.acquire(LockRequest.of("k", Duration.ZERO, null))) {
            assertThat(handle.isHeld()).isTrue();
            assertThat(handle.fencingToken()).isEqualTo(2);
            assertThat(this.store.takes).containsExactly("k", "k");
            assertThat(this.store.releases).containsExactly("k kept 0");
            assertThat(this.store.holders("k")).containsEntry("k", 2L);
        }
        assertThat(this.lost).isEmpty();
    }

    /** Just fresh enough (a little more than a tenth of the validity left) is handed out as it is. */
    @Test
    void aLockWithMoreThanTheMarginLeftIsHandedOut() {
        this.store.takeNextLateBy(LEASE.minus(LEASE.dividedBy(10)).minusSeconds(1));
        try (LockHandle handle = this.engine.acquire(LockRequest.of("k", Duration.ZERO, null))) {
            assertThat(handle.isHeld()).isTrue();
            assertThat(this.store.takes).containsExactly("k");
        }
    }

    /** No retake left: LockNotAcquiredException, and nothing held anywhere. */
    @Test
    void aStoreWhoseEveryTakeComesBackStaleFailsAndLeavesNothingHeld() {
        // One second of the 30 s lease left: less than a tenth, yet still held in the store until released.
        this.store.takeLateBy(LEASE.minusSeconds(1));
        assertThatThrownBy(() -> this.engine.acquire(LockRequest.of("k", Duration.ZERO, null)))
            .isInstanceOf(LockNotAcquiredException.class);
        assertThat(this.store.takes).containsExactly("k", "k");
        assertThat(this.store.releases).containsExactly("k kept 0", "k kept 0");
        assertThat(this.store.holders("k")).isEmpty();
        assertThat(this.engine.state().held()).isEmpty();
        assertThat(this.lost).isEmpty();
    }

    /**
     * TAKING(n) to UNDONE to TAKING(0): the first key's fixed lease ran while the second was slow to come, so the
     * request starts over (releasing the second and then the first, keeping nothing), and the section gets two
     * fresh keys. The stale first key is never reported lost: the caller never had it.
     */
    @Test
    void anEarlierKeyThatWentStaleWhileALaterOneCameStartsTheRequestOver() {
        Duration lease = Duration.ofSeconds(1);
        this.store.duringNextTakeOf("b", () -> {
            long aStart = this.store.taken("a").leaseStartNanos();
            // The time under test: a's lease runs down to less than a tenth while b is on its way.
            await().atMost(Duration.ofSeconds(5))
                .until(() -> System.nanoTime() - aStart > lease.minus(lease.dividedBy(20)).toNanos());
        });
        LockRequest request = LockRequest.of(List.of("a", "b"), Duration.ofSeconds(5), lease)
            .holdAtLeast(Duration.ofSeconds(1));
        try (LockHandle both = this.engine.acquire(request)) {
            assertThat(both.isHeld()).isTrue();
            assertThat(this.store.takes).containsExactly("a", "b", "a", "b");
            assertThat(this.store.releases).containsExactly("b kept 0", "a kept 0");
            // The key's second acquisition (fencing tokens count per key).
            assertThat(this.store.holders("a")).containsEntry("a", 2L);
        }
        assertThat(this.lost).isEmpty();
    }

    /** A key this thread holds is entered again as it is: the outer section runs on it already. */
    @Test
    void aKeyEnteredAgainIsNotTakenAgain() {
        try (LockHandle outer = this.engine.acquire(LockRequest.of("k", Duration.ZERO, null))) {
            this.store.takeLateBy(LEASE);
            try (LockHandle inner = this.engine.acquire(LockRequest.of("k", Duration.ZERO, null))) {
                assertThat(inner.isHeld()).isTrue();
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
            }
            assertThat(this.store.takes).containsExactly("k");
        }
    }
}
