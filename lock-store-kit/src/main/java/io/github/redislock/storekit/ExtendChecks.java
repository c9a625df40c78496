package io.github.redislock.storekit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A holder's own extension ({@link LockHandle#extend}): a fixed lease extended lasts past its first expiry with
 * nobody else getting in; a renewed lock extended has a fixed lease from then on, which ends it; an extension of a
 * lock already lost says so and tells the loss; an extension's holdAtLeast counts from the extension.
 */
public interface ExtendChecks extends StoreChecks {

    /** The fixed lease the checks start from: short, so that the checks outlive it many times. */
    Duration FIRST_LEASE = Duration.ofMillis(400);

    /**
     * A fixed lease of 400 ms is extended to a minute at once; another application then waits three first leases
     * in vain, and gets the key only when the holder releases it. The holder told no loss.
     */
    @Test
    default void aFixedLeaseExtendedOutlivesItsFirstExpiryWithNobodyElseGettingIn() {
        Application holder = start(STEADY_LEASE);
        Application waiter = start(STEADY_LEASE);
        LockHandle held = holder.acquire(LockRequest.of("extended", NO_WAIT, FIRST_LEASE));
        assertThat(held.extend(STEADY_LEASE)).isTrue();
        long start = System.nanoTime();
        assertThatThrownBy(() -> waiter.acquire("extended", FIRST_LEASE.multipliedBy(3)))
            .isInstanceOf(LockNotAcquiredException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(FIRST_LEASE.multipliedBy(3));
        assertThat(held.isHeld()).isTrue();
        assertThat(held.verifyHeld()).isTrue();
        held.close();
        try (LockHandle next = waiter.acquire("extended", LONG_WAIT)) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThat(holder.losses()).isEmpty();
        awaitNothingLeft("extended");
    }

    /**
     * A renewed lock extended to 400 ms is no longer renewed: its lease runs out, another application gets in, and
     * the holder's {@code isHeld()} is false by then.
     */
    @Test
    default void aRenewedLockExtendedHasAFixedLeaseFromThen() {
        Application holder = start(SHORT_LEASE);
        Application waiter = start(STEADY_LEASE);
        LockHandle held = holder.acquire("renewed", NO_WAIT);
        assertThat(held.extend(FIRST_LEASE)).isTrue();
        try (LockHandle next = waiter.acquire("renewed", LONG_WAIT)) {
            assertThat(held.isHeld()).isFalse();
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            held.close();
            assertThat(next.verifyHeld()).isTrue();
        }
        awaitNothingLeft("renewed");
    }

    /**
     * A fixed lease runs out and another application takes the key; the first holder's extension then answers
     * false, tells the loss once (RENEWAL), and leaves the new holder's lock as it was.
     */
    @Test
    default void anExtensionOfALostLockSaysSoAndTellsTheLoss() {
        Application first = start(STEADY_LEASE);
        Application second = start(STEADY_LEASE);
        LockHandle lost = first.acquire(LockRequest.of("lost", NO_WAIT, FIRST_LEASE));
        try (LockHandle next = second.acquire("lost", LONG_WAIT)) {
            assertThat(lost.extend(STEADY_LEASE)).isFalse();
            assertThat(lost.isLost()).isTrue();
            assertThat(lost.extend(STEADY_LEASE)).isFalse();
            assertThat(first.losses()).singleElement().satisfies((loss) -> {
                assertThat(loss.of(lost)).isTrue();
                assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
            });
            lost.close();
            assertThat(next.verifyHeld()).isTrue();
            assertThat(second.inspect("lost").fencingToken()).isEqualTo(next.fencingToken());
        }
        awaitNothingLeft("lost");
    }

    /**
     * An extension with a holdAtLeast of one second, released at once: a waiter gets the key no earlier than one
     * second after the extension, though the acquisition asked for no minimum.
     */
    @Test
    default void anExtensionsHoldAtLeastCountsFromTheExtension() {
        Duration minimum = Duration.ofSeconds(1);
        Application holder = start(STEADY_LEASE);
        Application waiter = start(STEADY_LEASE);
        LockHandle held = holder.acquire(LockRequest.of("minimum", NO_WAIT, STEADY_LEASE));
        long extendedAt = System.nanoTime();
        assertThat(held.extend(STEADY_LEASE, minimum)).isTrue();
        held.close();
        try (LockHandle next = waiter.acquire("minimum", LONG_WAIT)) {
            assertThat(Duration.ofNanos(System.nanoTime() - extendedAt)).isGreaterThanOrEqualTo(minimum);
        }
        assertThat(holder.losses()).isEmpty();
        awaitNothingLeft("minimum");
    }
}
