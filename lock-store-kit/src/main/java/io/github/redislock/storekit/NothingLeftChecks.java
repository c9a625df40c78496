package io.github.redislock.storekit;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A wait that ends without the lock, by its wait time or an interrupt, leaves nothing behind: no waiter counted,
 * nothing in the store (queue entries, lock nodes), the holder's lock untouched, and the key free once the holder
 * releases it.
 */
public interface NothingLeftChecks extends StoreChecks {

    @Test
    default void aWaitThatTimesOutLeavesNothingBehind() {
        Application holder = start(STEADY_LEASE);
        Application waiter = start(STEADY_LEASE);
        try (LockHandle held = holder.acquire("timeout", NO_WAIT)) {
            assertThatThrownBy(() -> waiter.acquire("timeout", SHORT_WAIT)).isInstanceOf(LockNotAcquiredException.class);
            assertThat(held.verifyHeld()).isTrue();
            assertThat(waiter.inspect("timeout").fencingToken()).isEqualTo(held.fencingToken());
            await().untilAsserted(() -> assertThat(waiter.engine().state().waiting()).isEmpty());
        }
        awaitNothingLeft("timeout");
    }

    /**
     * A thread that took the first of two keys and waits for the second, which another application holds, is
     * interrupted: it gets a {@link LockException} (not "not acquired"), keeps its interrupt flag, and gives the
     * first key back.
     */
    @Test
    default void anInterruptedWaitLeavesNothingBehind() throws InterruptedException {
        Application holder = start(STEADY_LEASE);
        Application waiter = start(STEADY_LEASE);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        CountDownLatch ended = new CountDownLatch(1);
        try (LockHandle held = holder.acquire("interrupt:b", NO_WAIT)) {
            Thread thread = new Thread(() -> {
                try {
                    waiter.acquire(LockRequest.of(List.of("interrupt:a", "interrupt:b"), LONG_WAIT, null)).close();
                }
                catch (Throwable ex) {
                    failure.set(ex);
                    stillInterrupted.set(Thread.currentThread().isInterrupted());
                }
                finally {
                    ended.countDown();
                }
            }, "store-kit-waiter");
            thread.start();
            String second = waiter.key("interrupt:b");
            await().atMost(Duration.ofSeconds(30)).until(() -> waiter.engine().state().waiting().containsKey(second));
            assertThat(waiter.holds(waiter.key("interrupt:a"))).as("the first key, taken").isTrue();
            thread.interrupt();
            assertThat(ended.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(failure.get()).isInstanceOf(LockException.class)
                .isNotInstanceOf(LockNotAcquiredException.class);
            assertThat(stillInterrupted).as("the waiter's interrupt flag").isTrue();
            assertThat(held.verifyHeld()).isTrue();
        }
        awaitNothingLeft("interrupt:a", "interrupt:b");
    }
}
