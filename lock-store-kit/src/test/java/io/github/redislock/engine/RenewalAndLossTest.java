package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockRequest;
import io.github.redislock.testsupport.ManualScheduler;
import org.junit.jupiter.api.Test;
import io.github.redislock.testsupport.LineIndependent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The lease and loss transitions of {@link Entry} as the engine drives them ({@link Renewer}, {@link LossSignal}),
 * over the in-memory store, whose leases run on this JVM's clock ({@link ScriptedStore}); the renewal scheduler is
 * ticked by the test.
 * Each test names the transition it makes; what every real store makes of them is proven by the store kit.
 */
@LineIndependent
class RenewalAndLossTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final ScriptedStore store = ScriptedStore.withLeases();

    private final ManualScheduler scheduler = new ManualScheduler();

    private final List<String> lost = new CopyOnWriteArrayList<>();

    private final LockEngine engine = new LockEngine(this.store, LEASE, (key, token, fence, detection) -> this.lost
        .add(key + " " + fence + " " + detection), this.scheduler);

    private LockHandle renewed(String key) {
        return this.engine.acquire(LockRequest.of(key, Duration.ZERO, null));
    }

    @Test
    void oneTickExtendsEveryRenewedLockInOneStoreCallAndLeavesFixedLeasesAlone() {
        LockHandle a = renewed("a");
        LockHandle b = renewed("b");
        LockHandle fixed = this.engine.acquire(LockRequest.of("f", Duration.ZERO, Duration.ofMinutes(1)));
        assertThat(this.scheduler.periods()).containsExactly(Duration.ofSeconds(10));
        this.scheduler.tick();
        assertThat(this.store.extensions).hasSize(1);
        assertThat(this.store.extensions.get(0)).containsExactlyInAnyOrder("a", "b");
        assertThat(a.isHeld() && b.isHeld() && fixed.isHeld()).isTrue();
        b.close();
        this.scheduler.tick();
        // HELD to RELEASED: renewal stops the moment the release begins.
        assertThat(this.store.extensions.get(1)).containsExactly("a");
        a.close();
        fixed.close();
        this.scheduler.tick();
        assertThat(this.store.extensions).hasSize(2);
        assertThat(this.lost).isEmpty();
    }

    @Test
    void aLockHandedOutWithLessThanAPeriodOfItsLeaseLeftGetsARoundOfItsOwnBeforeTheNextTick() {
        // 30 s lease, renewed every 10 s; taken with 5 s left.
        this.store.takeLateBy(Duration.ofSeconds(25));
        try (LockHandle handle = renewed("k")) {
            // One tick runs what is due: the lock's own early round and the periodic one.
            this.scheduler.tick();
            assertThat(this.store.extensions).hasSize(2);
            assertThat(handle.isHeld()).isTrue();
        }
        assertThat(this.lost).isEmpty();
    }

    @Test
    void anExtensionMovesTheLeaseStartToWhenItsRoundWasSent() {
        try (LockHandle handle = renewed("k")) {
            Entry entry = ((EngineHandle) handle).entry();
            long taken = entry.leaseStartNanos();
            await().until(() -> System.nanoTime() - taken > 0);
            long beforeRound = System.nanoTime();
            this.engine.renewNow();
            long afterRound = System.nanoTime();
            assertThat(entry.leaseStartNanos() - beforeRound).isNotNegative();
            assertThat(afterRound - entry.leaseStartNanos()).isNotNegative();
            assertThat(handle.isHeld()).isTrue();
        }
    }

    @Test
    void heldToLostWhenARenewalFindsTheKeyGoneSignalledOnceAndNoLongerRenewed() {
        LockHandle handle = renewed("k");
        this.store.lose("k");
        this.scheduler.tick();
        assertThat(handle.isLost()).isTrue();
        assertThat(handle.isHeld()).isFalse();
        assertThat(this.lost).containsExactly("k 1 RENEWAL");
        this.scheduler.tick();
        assertThat(this.store.extensions).hasSize(1);
        // LOST to released: the release goes to the store all the same, keeping nothing, and is not signalled again.
        handle.close();
        assertThat(this.store.releases).containsExactly("k kept 0");
        assertThat(this.lost).hasSize(1);
        assertThat(this.engine.state().held()).isEmpty();
    }

    @Test
    void aFailedRoundLosesNothingIsRetriedNextTickAndShowsInTheHealth() {
        try (LockHandle handle = renewed("k")) {
            this.store.failNextExtension(new LockException("store unreachable"));
            this.scheduler.tick();
            LockEngineState.Renewal health = this.engine.state().renewal();
            assertThat(health.failing()).isTrue();
            assertThat(health.failedRounds()).isOne();
            assertThat(health.lastError()).contains("store unreachable");
            assertThat(handle.isHeld()).isTrue();
            assertThat(handle.isLost()).isFalse();
            this.scheduler.tick();
            health = this.engine.state().renewal();
            assertThat(health.failing()).isFalse();
            assertThat(health.lastSuccess()).isNotNull();
            assertThat(this.store.extensions).hasSize(2);
        }
        assertThat(this.lost).isEmpty();
    }

    /**
     * One lock the store cannot answer for (UNKNOWN) stays held, unextended, and is asked again next tick, while
     * the other lock of the same round is extended and one the store no longer holds is lost: each lock keeps
     * what the store said of it.
     */
    @Test
    void eachLockOfARoundKeepsItsOwnAnswerAndAnUnknownOneIsAskedAgain() {
        LockHandle unknown = renewed("u");
        LockHandle extended = renewed("e");
        LockHandle gone = renewed("g");
        Entry entry = ((EngineHandle) unknown).entry();
        long leaseStart = entry.leaseStartNanos();
        await().until(() -> System.nanoTime() - leaseStart > 0);
        this.store.answerUnknownFor("u");
        this.store.lose("g");
        this.scheduler.tick();
        assertThat(this.lost).containsExactly("g 1 RENEWAL");
        assertThat(unknown.isHeld() && extended.isHeld()).isTrue();
        assertThat(entry.leaseStartNanos()).isEqualTo(leaseStart);
        assertThat(((EngineHandle) extended).entry().leaseStartNanos() - leaseStart).isPositive();
        assertThat(this.engine.state().renewal().failing()).isTrue();
        this.scheduler.tick();
        assertThat(this.store.extensions.get(1)).containsExactlyInAnyOrder("u", "e");
        unknown.close();
        extended.close();
        gone.close();
        assertThat(this.lost).hasSize(1);
    }

    /**
     * HELD to LOST by the local clock: a lease that ran out with no extension confirmed is lost at the next tick,
     * signalled once (RENEWAL) and never offered to the store again, even though the store still keeps the key (as
     * Redlock nodes a renewal still reaches once the majority is gone): extending it could only keep that copy
     * alive and have the lock count as held again. The key goes with the release.
     */
    @Test
    void aLeaseThatRanOutByTheLocalClockIsLostAtTheNextTickAndNeverExtendedAgain() {
        this.store.outlastLeasesBy(Duration.ofHours(1));
        // Taken with 3.1 s of its 30 s lease left by the local clock: just fresh enough to be handed out.
        this.store.takeLateBy(Duration.ofMillis(26_900));
        LockHandle handle = renewed("k");
        await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
        this.scheduler.tick();
        assertThat(this.lost).containsExactly("k 1 RENEWAL");
        assertThat(handle.isLost()).isTrue();
        this.scheduler.tick();
        assertThat(this.store.extensions).isEmpty();
        assertThat(handle.isHeld()).isFalse();
        handle.close();
        assertThat(this.store.releases).containsExactly("k kept 0");
        assertThat(this.store.holders("k")).isEmpty();
        assertThat(this.lost).hasSize(1);
    }

    /**
     * HELD to LOST when the round that extended the lock is answered only after its lease ran out by the local
     * clock: the lock had stopped counting as held, and a late confirmation does not bring it back.
     */
    @Test
    void anExtensionConfirmedOnlyAfterTheLeaseRanOutLosesTheLock() {
        this.store.outlastLeasesBy(Duration.ofHours(1));
        // Taken with 3.5 s of its lease left; the store answers the round once that has run out.
        this.store.takeLateBy(Duration.ofMillis(26_500));
        LockHandle handle = renewed("k");
        this.store.duringNextExtension(() -> await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld()));
        this.scheduler.tick();
        assertThat(this.lost).containsExactly("k 1 RENEWAL");
        assertThat(handle.isLost()).isTrue();
        assertThat(handle.isHeld()).isFalse();
        this.scheduler.tick();
        assertThat(this.store.extensions).hasSizeLessThanOrEqualTo(1);
        handle.close();
        assertThat(this.lost).hasSize(1);
    }

    @Test
    void aLockWhoseReleaseBeganWhileItsRoundWasOnItsWayIsNeverMarkedLost() {
        LockHandle handle = renewed("k");
        this.store.duringNextExtension(handle::close);
        this.scheduler.tick();
        assertThat(handle.isLost()).isFalse();
        assertThat(this.lost).isEmpty();
        assertThat(this.store.releases).containsExactly("k kept 0");
    }

    @Test
    void aFixedLeaseRunsOutByTheLocalClockAndItsReleaseReportsTheLoss() {
        LockHandle handle = this.engine.acquire(LockRequest.of("k", Duration.ZERO, Duration.ofMillis(50)));
        assertThat(handle.isHeld()).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
        // HELD: not lost until something finds the key gone; nobody enters it again meanwhile.
        assertThat(handle.isLost()).isFalse();
        handle.close();
        assertThat(this.lost).containsExactly("k 1 RELEASE");
        assertThat(handle.isLost()).isTrue();
    }

    @Test
    void aCommitCheckThatFindsTheKeyGoneMarksTheLockLost() {
        try (LockHandle handle = renewed("k")) {
            assertThat(handle.verifyHeld()).isTrue();
            this.store.lose("k");
            assertThat(handle.verifyHeld()).isFalse();
            assertThat(handle.isLost()).isTrue();
            assertThat(handle.verifyHeld()).isFalse();
        }
        assertThat(this.lost).containsExactly("k 1 COMMIT_CHECK");
    }

    @Test
    void aLossTheStoreNoticesByItselfIsSignalledOnceWithItsDetection() {
        LockHandle handle = renewed("k");
        this.store.loseAndReport("k");
        assertThat(handle.isLost()).isTrue();
        this.scheduler.tick();
        handle.close();
        assertThat(this.lost).containsExactly("k 1 SESSION");
    }

    @Test
    void aLossReportedBeforeTheTakeReturnedIsSignalledOnceTheLockIsRegistered() {
        this.store.loseOnTake("k");
        LockHandle handle = renewed("k");
        assertThat(handle.isLost()).isTrue();
        assertThat(handle.isHeld()).isFalse();
        handle.close();
        assertThat(this.lost).containsExactly("k 1 SESSION");
        // Nothing remembered for the next holder of the key.
        try (LockHandle next = renewed("k")) {
            assertThat(next.isLost()).isFalse();
        }
        assertThat(this.lost).hasSize(1);
    }

    @Test
    void aStoreWithoutLeasesIsNeverExtendedAndItsLocksDoNotRunOut() {
        ScriptedStore sessions = ScriptedStore.withoutLeases();
        ManualScheduler ticks = new ManualScheduler();
        try (LockEngine engine = new LockEngine(sessions, Duration.ofMillis(30), LockLossListener.NONE, ticks)) {
            LockHandle renewed = engine.acquire(LockRequest.of("r", Duration.ZERO, null));
            LockHandle fixed = engine.acquire(LockRequest.of("f", Duration.ZERO, Duration.ofMillis(1)));
            Instant start = Instant.now();
            await().until(() -> Instant.now().isAfter(start.plusMillis(50)));
            ticks.tick();
            assertThat(sessions.extensions).isEmpty();
            assertThat(ticks.periods()).isEmpty();
            assertThat(renewed.isHeld() && fixed.isHeld()).isTrue();
            renewed.close();
            fixed.close();
        }
    }

    @Test
    void theSnapshotShowsHeldKeysNestingAndKeptKeys() {
        try (LockHandle outer = renewed("k"); LockHandle inner = renewed("k")) {
            LockEngineState state = this.engine.state();
            assertThat(state.held()).singleElement().satisfies((key) -> {
                assertThat(key.key()).isEqualTo("k");
                assertThat(key.holds()).isEqualTo(2);
                assertThat(key.renewed()).isTrue();
                assertThat(key.leaseTime()).isEqualTo(LEASE);
                assertThat(key.thread()).isEqualTo(Thread.currentThread().getName());
            });
        }
        this.engine.acquire(LockRequest.of("m", Duration.ZERO, null).holdAtLeast(Duration.ofMinutes(1))).close();
        LockEngineState state = this.engine.state();
        assertThat(state.held()).isEmpty();
        assertThat(state.kept()).singleElement().satisfies((key) -> assertThat(key.key()).isEqualTo("m"));
        // KEPT: nobody takes it meanwhile, a thread of this application included.
        assertThatThrownBy(() -> renewed("m")).isInstanceOf(io.github.redislock.LockNotAcquiredException.class);
    }
}
