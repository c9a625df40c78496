package io.github.redislock.redis;

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
        assertThat(line.leave()).isEqualTo(Line.LEAVE_QUEUE);
        assertThat(line.leftQueue()).as("nobody joined meanwhile").isFalse();
        assertThat(line.retireIfIdle()).isTrue();
        assertThat(line.join()).as("a retired line takes nobody").isFalse();
    }

    /**
     * A release here leaves the queue (nobody waits) while a thread joins: its first attempt reaches Redis after
     * the release's script, so it queues the application again, and only then does the release's leave complete.
     * That thread then gets the key (taken over, or free): the line must stay, queued, so that its release takes
     * the entry out. Retired with the entry still in the queue, the line's key would be handed to this application
     * at the next release, the message dropped (no line), and the key would lie idle for the entry's lease.
     */
    @Test
    void aLineQueuedAgainWhileALeaveWasOnItsWayOutlivesTheLeave() throws Exception {
        Line line = new Line();
        try (Waiter holder = new Waiter(); Waiter joiner = new Waiter()) {
            long now = System.nanoTime();
            holder.call(line::join);
            holder.call(() -> line.startAttempt(now));
            holder.call(() -> {
                line.taken(now + SECOND);
                return null;
            });
            holder.call(line::leaveTakingTurn);
            assertThat(line.releaseLeaves()).as("the holder's release leaves: nobody waits").isTrue();
            joiner.call(line::join);
            assertThat(joiner.call(() -> line.startAttempt(now))).as("not queued: attempts at once").isTrue();
            joiner.call(() -> {
                line.taken(now + SECOND); // its attempt ran after the release's script
                return null;
            });
            assertThat(line.leftQueue()).as("the release's leave completes; the joiner looks again").isTrue();
            assertThat(joiner.call(() -> line.startAttempt(now))).isTrue();
            joiner.call(line::leaveTakingTurn); // reply 2 or 1: the joiner holds the key
            assertThat(line.retireIfIdle()).as("retired while its queue entry lives").isFalse();
            assertThat(line.releaseLeaves()).as("the joiner's release takes the entry out").isTrue();
            assertThat(line.leftQueue()).isFalse();
            assertThat(line.retireIfIdle()).isTrue();
        }
    }

    /** The same when the leave was the last waiter's give-up, sent on the executor. */
    @Test
    void aLineQueuedAgainWhileAGiveUpsLeaveWasOnItsWayOutlivesTheLeave() throws Exception {
        Line line = new Line();
        try (Waiter quitter = new Waiter(); Waiter joiner = new Waiter()) {
            long now = System.nanoTime();
            quitter.call(line::join);
            quitter.call(() -> line.startAttempt(now));
            quitter.call(() -> {
                line.taken(now + SECOND);
                return null;
            });
            assertThat(quitter.call(line::leave)).isEqualTo(Line.LEAVE_QUEUE);
            joiner.call(line::join);
            joiner.call(() -> line.startAttempt(now + SECOND));
            joiner.call(() -> {
                line.taken(now + 2 * SECOND);
                return null;
            });
            assertThat(line.leftQueue()).isTrue();
            assertThat(joiner.call(() -> line.startAttempt(now))).isTrue();
            joiner.call(line::leaveTakingTurn);
            assertThat(line.retireIfIdle()).as("retired while its queue entry lives").isFalse();
        }
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

    @Test
    void aLockIsPassedOnlyToThreadsThatWereWaitingWhenTheApplicationTookTheKeyInRedis() throws Exception {
        Line line = new Line();
        try (Waiter taker = new Waiter(); Waiter early = new Waiter(); Waiter late = new Waiter()) {
            assertThat(line.offer(grant(1))).as("nobody waits").isFalse();
            taker.call(line::join);
            early.call(line::join);
            assertThat(line.offer(grant(1))).as("no turn has begun").isFalse();
            taker.call(line::leaveTakingTurn);
            late.call(line::join);
            assertThat(line.offer(grant(2))).as("early waited when the turn began").isTrue();
            assertThat(line.offer(grant(3))).as("one is pending already").isFalse();
            assertThat(early.call(line::claim)).extracting(LocalGrant::fence).isEqualTo(2L);
            early.call(line::leave);
            assertThat(line.offer(grant(3))).as("late joined during the turn: it waits for the next one").isFalse();
            line.turnEnds();
            taker.call(line::join);
            late.call(line::leaveTakingTurn);
            assertThat(line.offer(grant(4))).as("taker waited when late's turn began").isTrue();
        }
    }

    @Test
    void withRejoinALockIsAlsoPassedToAThreadThatJoinedDuringTheTurn() throws Exception {
        Line line = new Line();
        try (Waiter taker = new Waiter(); Waiter late = new Waiter()) {
            taker.call(line::join);
            taker.call(line::leaveTakingTurn);
            late.call(line::join);
            assertThat(line.offer(grant(2))).as("late joined during the turn").isFalse();
            assertThat(line.offer(grant(2), true)).as("late joined during the turn, with rejoin").isTrue();
            assertThat(line.offer(grant(3), true)).as("one is pending already").isFalse();
            assertThat(late.call(line::claim)).extracting(LocalGrant::fence).isEqualTo(2L);
            late.call(line::leave);
            assertThat(line.offer(grant(3), true)).as("nobody waits").isFalse();
        }
    }

    @Test
    void theFirstWaiterClaimsAPassedLockAtOnceAndOnlyOnce() throws Exception {
        Line line = new Line();
        try (Waiter taker = new Waiter(); Waiter first = new Waiter(); Waiter second = new Waiter()) {
            taker.call(line::join);
            long now = System.nanoTime();
            first.call(line::join);
            first.call(() -> line.startAttempt(now));
            second.call(line::join);
            taker.call(line::leaveTakingTurn);
            first.call(() -> {
                line.taken(now + SECOND);
                return null;
            });
            LocalGrant passed = grant(7);
            assertThat(line.offer(passed)).isTrue();
            assertThat(first.call(() -> line.parkNanos(now, SECOND))).as("the first does not sleep on its timer")
                .isZero();
            assertThat(second.call(line::claim)).as("the second may not claim it").isNull();
            assertThat(first.call(line::claim)).isSameAs(passed);
            assertThat(first.call(line::claim)).as("claimed once").isNull();
        }
    }

    @Test
    void aPassedLockGoesToTheNextWaiterWhenTheFirstGivesUp() throws Exception {
        Line line = new Line();
        try (Waiter taker = new Waiter(); Waiter first = new Waiter(); Waiter second = new Waiter()) {
            taker.call(line::join);
            first.call(line::join);
            second.call(line::join);
            taker.call(line::leaveTakingTurn);
            assertThat(line.offer(grant(3))).isTrue();
            assertThat(first.call(line::leave)).as("someone still waits").isEqualTo(Line.STAY);
            assertThat(second.call(line::claim)).extracting(LocalGrant::fence).isEqualTo(3L);
        }
    }

    @Test
    void theLastWaiterGivingUpReleasesAPassedLockNobodyClaimed() throws Exception {
        Line line = new Line();
        try (Waiter taker = new Waiter(); Waiter waiter = new Waiter()) {
            taker.call(line::join);
            long now = System.nanoTime();
            taker.call(() -> line.startAttempt(now));
            taker.call(() -> {
                line.taken(now + SECOND);
                return null;
            });
            waiter.call(line::join);
            taker.call(line::leaveTakingTurn);
            LocalGrant passed = grant(5);
            assertThat(line.offer(passed)).isTrue();
            Line.Departure departure = waiter.call(line::leave);
            assertThat(departure.orphan()).isSameAs(passed);
            assertThat(departure.leaveQueue()).as("queued: the entry goes with the release").isTrue();
            assertThat(line.leftQueue()).isFalse();
            assertThat(line.retireIfIdle()).isTrue();
        }
    }

    /** A thread of its own that stands in lines: what it is asked to do runs on it, one call at a time. */
    private static final class Waiter implements AutoCloseable {

        private final java.util.concurrent.ExecutorService thread = java.util.concurrent.Executors
            .newSingleThreadExecutor();

        <T> T call(java.util.concurrent.Callable<T> action) throws Exception {
            return this.thread.submit(action).get(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            this.thread.shutdownNow();
        }
    }

    private static LocalGrant grant(long fence) {
        long now = System.nanoTime();
        return new LocalGrant("token:" + fence, fence, true, 30_000, now + 30 * SECOND, 1, now);
    }

    private static <T> T onOtherThread(Supplier<T> action) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = new Thread(() -> result.complete(action.get()));
        thread.start();
        thread.join(TimeUnit.SECONDS.toMillis(10));
        return result.get(10, TimeUnit.SECONDS);
    }
}
