package io.github.redislock.storekit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock lost in the store is never silent, and a holder that lost its lock never touches the next holder's:
 * the loss is told once (the loss listener, {@code isLost()}, {@code isHeld()} false) within the documented
 * bound, and its release deletes nothing.
 */
public interface LossChecks extends StoreChecks {

    /**
     * What a told loss may take beyond the documented bound on an idle machine: the round trip that finds it
     * (a renewal round on every node, a session event).
     */
    Duration ROUND_TRIP_ALLOWANCE = Duration.ofMillis(500);

    /**
     * The lock is taken away in the store ({@link StoreFixture#loseLock}); its application is told within the
     * bound the documentation gives: the next renewal round, a third of the lease, for a leased store (detection
     * RENEWAL); the end of its session, as its client learns it, for a session store (detection SESSION). The
     * bound grows by what pauses of this JVM measurably cost ({@link Pauses}).
     */
    @Test
    default void aLockLostInTheStoreIsToldWithinTheDocumentedBound() {
        StoreFixture fixture = applications().fixture();
        Application holder = start(SHORT_LEASE);
        assertThat(holder.store().leased()).as("leased, as the fixture says").isEqualTo(fixture.leased());
        Duration bound = fixture.leased() ? holder.engine().renewalPeriod() : fixture.sessionLossNotice();
        LockHandle lock = holder.acquire("lost", NO_WAIT);
        try (Pauses pauses = Pauses.measure()) {
            fixture.loseLock(holder.store(), lock.key());
            long lostAt = System.nanoTime();
            await().atMost(LONG_WAIT).until(() -> !holder.losses().isEmpty());
            Duration told = Duration.ofNanos(System.nanoTime() - lostAt);
            assertThat(told).as("told after").isLessThanOrEqualTo(bound.plus(ROUND_TRIP_ALLOWANCE).plus(pauses.longest()));
        }
        assertThat(holder.losses()).singleElement().satisfies((loss) -> {
            assertThat(loss.of(lock)).isTrue();
            assertThat(loss.detection())
                .isEqualTo(fixture.leased() ? LockLossDetection.RENEWAL : LockLossDetection.SESSION);
        });
        assertThat(lock.isLost()).isTrue();
        assertThat(lock.isHeld()).isFalse();
        assertThat(lock.verifyHeld()).isFalse();
        lock.close();
        assertThat(holder.losses()).hasSize(1);
        awaitNothingLeft("lost");
    }

    /**
     * The lock is taken away behind its holder's back and another application takes the key; the first one's
     * release then deletes nothing (the next holder's lock stays, with its larger fencing token), and the first
     * application is told its loss once, by its release or by the store.
     */
    @Test
    default void theReleaseOfALockNoLongerOursLeavesTheNextHoldersLockAlone() {
        StoreFixture fixture = applications().fixture();
        Application first = start(STEADY_LEASE);
        Application second = start(STEADY_LEASE);
        LockHandle lost = first.acquire("taken over", NO_WAIT);
        fixture.loseLock(first.store(), lost.key());
        try (LockHandle next = second.acquire("taken over", LONG_WAIT)) {
            assertThat(next.fencingToken()).isGreaterThan(lost.fencingToken());
            lost.close();
            assertThat(next.verifyHeld()).as("the next holder's lock, after the first one's release").isTrue();
            assertThat(next.isLost()).isFalse();
            assertThat(first.inspect("taken over").fencingToken()).isEqualTo(next.fencingToken());
            assertThat(first.losses()).singleElement().satisfies((loss) -> assertThat(loss.of(lost)).isTrue());
        }
        assertThat(second.losses()).isEmpty();
        awaitNothingLeft("taken over");
    }
}
