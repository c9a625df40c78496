package io.github.redislock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transitions of one application's line for a key (see {@link Waiting}), without Redis: who attempts
 * when, and what a release or a give-up must do. Other threads stand in the line through {@link #onOtherThread}.
 */
class LineTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aNewLinesFirstWaiterAttemptsAtOnce() {
        Line line = new Line();
        assertThat(line.join()).isTrue();
        assertThat(line.startAttempt(System.nanoTime())).isTrue();
    }

    @Test
    void afterTakenTheFirstWaiterWaitsForItsTimerOrAHandOff() {
        Line line = new Line();
        line.join();
        long now = System.nanoTime();
        assertThat(line.startAttempt(now)).isTrue();
        line.taken(now + SECOND);
        assertThat(line.startAttempt(now)).as("queued, timer running").isFalse();
        assertThat(line.parkNanos(now, SECOND)).isEqualTo(SECOND);
        assertThat(line.startAttempt(now + SECOND)).as("timer ran out").isTrue();
        line.taken(now + 2 * SECOND);
        assertThat(line.handedOver()).as("a waiter is there to take it").isTrue();
        assertThat(line.parkNanos(now, SECOND)).isZero();
        assertThat(line.startAttempt(now)).as("hand-off arrived").isTrue();
    }

    @Test
    void aHandOffThatArrivesWhileTheAttemptIsOnItsWayIsTakenByTheNextAttempt() {
        Line line = new Line();
        line.join();
        long now = System.nanoTime();
        assertThat(line.startAttempt(now)).isTrue();
        line.handedOver(); // while the attempt is in flight
        line.taken(now + SECOND);
        assertThat(line.startAttempt(now)).isTrue();
    }

    @Test
    void onlyTheFirstWaiterAttempts() throws Exception {
        Line line = new Line();
        line.join();
        assertThat(onOtherThread(() -> line.join() && line.startAttempt(System.nanoTime()))).isFalse();
        assertThat(line.startAttempt(System.nanoTime())).isTrue();
    }

    @Test
    void aFirstWaiterOfAnApplicationThatIsNotQueuedNeverSleepsOnATimer() {
        Line line = new Line();
        line.join();
        long now = System.nanoTime();
        line.startAttempt(now);
        line.taken(now + SECOND);
        // A release here took the application out of the queue while this thread stood in the line.
        assertThat(line.leftQueue()).as("the first waiter is told to look at once").isTrue();
        assertThat(line.startAttempt(now)).isTrue();
    }

    @Test
    void aReleaseLeavesTheQueueOnlyWhenNobodyHereWaits() throws Exception {
        Line line = new Line();
        line.join();
        long now = System.nanoTime();
        line.startAttempt(now);
        line.taken(now + SECOND);
        line.leave(); // acquired: the application stays queued until the release
        assertThat(onOtherThread(() -> line.join())).isTrue();
        assertThat(line.releaseLeaves()).as("another thread waits here").isFalse();
    }

    @Test
    void theLastWaiterGivingUpWhileQueuedLeavesTheQueue() {
        Line line = new Line();
        line.join();
        long now = System.nanoTime();
        line.startAttempt(now);
        line.taken(now + SECOND);
        assertThat(line.leave()).isTrue();
        assertThat(line.leftQueue()).as("nobody joined meanwhile").isFalse();
        assertThat(line.retireIfIdle()).isTrue();
        assertThat(line.join()).as("a retired line takes nobody").isFalse();
    }

    @Test
    void aHandOffToALineWithNobodyWaitingIsNotTaken() {
        assertThat(new Line().handedOver()).isFalse();
    }

    @Test
    void aQueuedLineWithoutWaitersIsKeptForTheHoldersRelease() {
        Line line = new Line();
        line.join();
        long now = System.nanoTime();
        line.startAttempt(now);
        line.taken(now + SECOND);
        line.leave();
        assertThat(line.retireIfIdle()).isFalse();
        assertThat(line.releaseLeaves()).isTrue();
        assertThat(line.leftQueue()).isFalse();
        assertThat(line.retireIfIdle()).isTrue();
    }

    private static <T> T onOtherThread(Supplier<T> action) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> result.complete(action.get()));
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(10));
        return result.get(10, TimeUnit.SECONDS);
    }
}
