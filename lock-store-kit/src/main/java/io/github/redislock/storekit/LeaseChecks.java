package io.github.redislock.storekit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Leases: a renewed lock lasts as long as its holder holds it, however many leases that is; a fixed lease ends
 * the lock on time, lets the next holder in, and the release then reports the loss.
 */
public interface LeaseChecks extends StoreChecks {

    /**
     * Another application waits three short leases in vain while the holder keeps its renewed lock. Only when
     * this JVM was measurably paused for longer than renewal can bridge (the lease less one renewal period) may
     * the waiter have got in, and then the holder must have been told.
     */
    @Test
    default void aRenewedLockOutlivesSeveralLeasesWhileAnotherApplicationWaitsInVain() {
        Application holder = start(SHORT_LEASE);
        Application waiter = start(SHORT_LEASE);
        Duration slack = SHORT_LEASE.minus(holder.engine().renewalPeriod());
        try (Pauses pauses = Pauses.measure(); LockHandle held = holder.acquire("renewed", NO_WAIT)) {
            long start = System.nanoTime();
            Throwable outcome = catchThrowable(() -> waiter.acquire("renewed", SHORT_LEASE.multipliedBy(3)).close());
            if (pauses.longest().compareTo(slack) < 0) {
                assertThat(outcome).isInstanceOf(LockNotAcquiredException.class);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(SHORT_LEASE.multipliedBy(3));
                assertThat(held.verifyHeld()).isTrue();
                assertThat(holder.losses()).isEmpty();
            }
            else if (outcome == null) {
                await().atMost(LONG_WAIT).until(() -> !holder.losses().isEmpty());
            }
        }
        awaitNothingLeft("renewed");
    }

    /**
     * A fixed lease of half a second runs out while its holder still has the handle: another application gets
     * in, with a larger fencing token; the holder's {@code isHeld()} is false, and its release reports the loss
     * (RELEASE) and leaves the new holder's lock alone.
     */
    @Test
    default void aFixedLeaseEndsTheLockAndItsReleaseReportsTheLoss() {
        Application first = start(STEADY_LEASE);
        Application second = start(STEADY_LEASE);
        LockHandle fixed = first.acquire(LockRequest.of("fixed", NO_WAIT, Duration.ofMillis(500)));
        try (LockHandle next = second.acquire("fixed", LONG_WAIT)) {
            assertThat(fixed.isHeld()).isFalse();
            assertThat(next.fencingToken()).isGreaterThan(fixed.fencingToken());
            fixed.close();
            assertThat(first.losses()).singleElement().satisfies((loss) -> {
                assertThat(loss.of(fixed)).isTrue();
                assertThat(loss.detection()).isEqualTo(LockLossDetection.RELEASE);
            });
            assertThat(next.verifyHeld()).isTrue();
        }
        awaitNothingLeft("fixed");
    }
}
