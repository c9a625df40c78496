package io.github.redislock.storekit;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** holdAtLeast: a key released early stays taken, by nobody, until the minimum has passed since it was taken. */
public interface HoldAtLeastChecks extends StoreChecks {

    /** Released at once with a minute to go: every application, the holder's own included, finds it taken. */
    @Test
    default void aKeyReleasedBeforeItsHoldAtLeastStaysTaken() {
        Application holder = start(STEADY_LEASE);
        Application other = start(STEADY_LEASE);
        holder.acquire(LockRequest.of("kept", NO_WAIT, null).holdAtLeast(Duration.ofMinutes(1))).close();
        assertThat(other.inspect("kept").held()).isTrue();
        assertThatThrownBy(() -> other.acquire("kept", SHORT_WAIT)).isInstanceOf(LockNotAcquiredException.class);
        assertThatThrownBy(() -> holder.acquire("kept", NO_WAIT)).isInstanceOf(LockNotAcquiredException.class);
    }

    /**
     * A waiter gets the key no earlier than holdAtLeast after the holder's acquisition began (the minimum counts
     * from when the store took the key, which is later), however early the holder released it.
     */
    @Test
    default void aWaiterGetsInNoEarlierThanHoldAtLeastAfterTheHolderTookTheKey() {
        Duration minimum = Duration.ofSeconds(1);
        Application holder = start(STEADY_LEASE);
        Application waiter = start(STEADY_LEASE);
        long asked = System.nanoTime();
        LockHandle first = holder.acquire(LockRequest.of("minimum", NO_WAIT, null).holdAtLeast(minimum));
        first.close();
        try (LockHandle next = waiter.acquire("minimum", LONG_WAIT)) {
            assertThat(Duration.ofNanos(System.nanoTime() - asked)).isGreaterThanOrEqualTo(minimum);
            assertThat(next.fencingToken()).isGreaterThan(first.fencingToken());
        }
        assertThat(holder.losses()).isEmpty();
        awaitNothingLeft("minimum");
    }
}
