package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.support.OverlapLog;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.StallMeter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hand-off correctness, judged from outside: exactly one holder at a time, also between two threads of one
 * application after a hand-off; no idle lock while others wait; and an acquisition that is abandoned
 * (interrupted, or timed out on a frozen Redis) leaves no lock behind.
 */
class HandoffCorrectnessTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    /**
     * How long thread A holds the lock it got by hand-off: longer than any housekeeping an engine may run on
     * its waiting state (lines lingering for 10 s, swept every 5 s, so gone at the latest 15 s after they
     * emptied).
     */
    private static final Duration HOLD = Duration.ofSeconds(18);

    /** Thread B asks with a wait only right after A got in and again after this long, without a wait between. */
    private static final Duration QUIET_SPELL = Duration.ofSeconds(16);

    /**
     * Application Y holds the key; thread A of application X waits for it and gets it when Y releases. While
     * A holds it (renewed) for {@link #HOLD}, thread B of X keeps asking: without waiting, all the time, and
     * with a 300 ms wait right after A got in and again after a quiet spell longer than any internal linger.
     * B must never get in while A is inside, and must get in after A leaves, with a larger fencing token.
     */
    @Test
    void secondThreadOfTheApplicationNeverEntersWhileTheFirstHoldsAHandedOffLock() throws Exception {
        String key = "handed-off";
        OverlapLog log = new OverlapLog();
        AtomicBoolean aInside = new AtomicBoolean();
        AtomicLong aFence = new AtomicLong();
        CountDownLatch aEntered = new CountDownLatch(1);
        CountDownLatch bEnteredWhileAInside = new CountDownLatch(1);
        try (LockApplication x = LockApplication.start(redis.server());
                LockApplication y = LockApplication.start(redis.server())) {
            LockHandle yHandle = y.template().tryAcquire(key, Duration.ZERO, null).orElseThrow();
            try (Background<Void> a = Background.start("x-thread-a", () -> {
                x.template().run(key, Duration.ofSeconds(60), null, () -> {
                    long entered = log.enter();
                    aInside.set(true);
                    aFence.set(LockContext.current().orElseThrow().fencingToken());
                    aEntered.countDown();
                    // Hold for HOLD, or less if B got in anyway (the test has failed then).
                    awaitQuietly(bEnteredWhileAInside, HOLD);
                    aInside.set(false);
                    log.exit(entered);
                });
                return null;
            })) {
                a.awaitBlockedInside();
                yHandle.close();
                assertThat(aEntered.await(10, TimeUnit.SECONDS)).as("A got the lock Y released").isTrue();
                long aEnteredAt = System.nanoTime();
                try (Background<SecondThread> b = Background.start("x-thread-b",
                        () -> askRepeatedly(x.template(), key, aEnteredAt, log, aInside, bEnteredWhileAInside))) {
                    a.get(HOLD.plusSeconds(30));
                    SecondThread second = b.get(Duration.ofSeconds(30));
                    assertThat(second.enteredWhileAInside()).as("times B got in while A was inside (B asked %s times"
                            + " without waiting and %s times with a wait)", second.plainAttempts(),
                            second.waitingAttempts()).isZero();
                    assertThat(log.maxConcurrent()).as("sections inside at once").isEqualTo(1);
                    assertThat(second.fenceAfterA()).as("B's fencing token after A left").isGreaterThan(aFence.get());
                }
            }
        }
    }

    /** What thread B saw: how often it got in while A was inside, and its fencing token once A had left. */
    record SecondThread(int enteredWhileAInside, long fenceAfterA, int plainAttempts, int waitingAttempts) {
    }

    private static SecondThread askRepeatedly(DistributedLockTemplate template, String key, long aEnteredAt,
            OverlapLog log, AtomicBoolean aInside, CountDownLatch bEnteredWhileAInside) {
        int enteredWhileAInside = 0;
        int plain = 0;
        int waiting = 0;
        long fenceAfterA = -1;
        long giveUpAt = aEnteredAt + HOLD.plusSeconds(20).toNanos();
        while (fenceAfterA < 0 && System.nanoTime() < giveUpAt) {
            List<Long> fencesInsideWhileA = new ArrayList<>();
            List<Long> fencesAfterA = new ArrayList<>();
            plain++;
            Optional<LockHandle> handle = template.tryAcquire(key, Duration.ZERO, null);
            if (handle.isPresent()) {
                try (LockHandle held = handle.get()) {
                    record(log, aInside, held.fencingToken(), fencesInsideWhileA, fencesAfterA);
                }
            }
            long sinceA = System.nanoTime() - aEnteredAt;
            boolean withWait = sinceA < TimeUnit.SECONDS.toNanos(1) || sinceA > QUIET_SPELL.toNanos();
            if (withWait) {
                waiting++;
                try {
                    template.run(key, Duration.ofMillis(300), null, () -> record(log, aInside,
                            LockContext.current().orElseThrow().fencingToken(), fencesInsideWhileA, fencesAfterA));
                }
                catch (LockNotAcquiredException ex) {
                    // A holds it: as it should be.
                }
            }
            else {
                // Pacing between plain attempts.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            if (!fencesInsideWhileA.isEmpty()) {
                enteredWhileAInside += fencesInsideWhileA.size();
                bEnteredWhileAInside.countDown();
            }
            if (!fencesAfterA.isEmpty()) {
                fenceAfterA = fencesAfterA.get(0);
            }
        }
        return new SecondThread(enteredWhileAInside, fenceAfterA, plain, waiting);
    }

    private static void record(OverlapLog log, AtomicBoolean aInside, long fence, List<Long> insideWhileA,
            List<Long> afterA) {
        long entered = log.enter();
        (aInside.get() ? insideWhileA : afterA).add(fence);
        log.exit(entered);
    }

    /** A thread that is interrupted before it asks gets an exception, runs nothing and leaves nothing locked. */
    @Test
    void interruptedCallerGetsLockExceptionAndLeavesTheKeyFree() throws Exception {
        String key = "interrupted";
        String redisKey = LockApplication.PREFIX + key;
        try (LockApplication x = LockApplication.start(redis.server());
                LockApplication y = LockApplication.start(redis.server())) {
            // Connected before the interrupted call, so that call does reach Redis.
            x.template().run("warm-up", Duration.ZERO, null, () -> {
            });
            AtomicBoolean ran = new AtomicBoolean();
            Throwable thrown;
            try (Background<Throwable> caller = Background.start("interrupted-caller", () -> {
                Thread.currentThread().interrupt();
                try {
                    x.template().run(key, Duration.ofSeconds(5), null, () -> ran.set(true));
                    return null;
                }
                catch (Throwable ex) {
                    return ex;
                }
                finally {
                    Thread.interrupted();
                }
            })) {
                thrown = caller.get(Duration.ofSeconds(10));
            }
            assertThat(ran).as("the work ran").isFalse();
            assertThat(thrown).as("what execute() threw").isInstanceOf(LockException.class);
            assertThat(redis.command("EXISTS", redisKey)).as("EXISTS %s after the interrupted call threw %s; value: %s",
                    redisKey, thrown, redis.command("GET", redisKey)).isEqualTo(0L);
            assertFreeFor(y.template(), key);
        }
    }

    /**
     * With a 300 ms command timeout, an acquisition sent to a frozen Redis fails after about that long; the
     * command still runs when Redis wakes up, and the key must then be freed at once, not stay locked for the
     * 30 s lease.
     */
    @Test
    void commandTimeoutOnAFrozenRedisLeavesNoGhostLock() throws Exception {
        String key = "frozen";
        String redisKey = LockApplication.PREFIX + key;
        Duration timeout = Duration.ofMillis(300);
        // A server of its own: the test freezes it, which would stall the class's shared one for the other tests.
        try (RedisServer server = RedisServer.start();
                LockApplication x = LockApplication.start(server, "spring.data.redis.timeout=" + timeout.toMillis()
                        + "ms", "redis-lock.lease-time=30s");
                LockApplication y = LockApplication.start(server)) {
            x.template().run("warm-up", Duration.ZERO, null, () -> {
            });
            y.template().run("warm-up", Duration.ZERO, null, () -> {
            });
            AtomicBoolean ran = new AtomicBoolean();
            AtomicLong tookNanos = new AtomicLong();
            Throwable thrown;
            server.pause();
            try (Background<Throwable> caller = Background.start("caller", () -> {
                long start = System.nanoTime();
                try {
                    x.template().run(key, Duration.ZERO, null, () -> ran.set(true));
                    return null;
                }
                catch (Throwable ex) {
                    return ex;
                }
                finally {
                    tookNanos.set(System.nanoTime() - start);
                }
            })) {
                thrown = caller.get(Duration.ofSeconds(10));
            }
            finally {
                server.resume();
            }
            assertThat(ran).as("the work ran").isFalse();
            assertThat(thrown).as("what execute() threw").isInstanceOf(LockException.class);
            assertThat(Duration.ofNanos(tookNanos.get())).as("time to fail")
                    .isBetween(timeout.minusMillis(50), timeout.multipliedBy(5));
            await("key " + redisKey + " freed after Redis woke up").atMost(Duration.ofSeconds(1))
                    .pollInterval(Duration.ofMillis(10)).until(() -> Long.valueOf(0).equals(server.command("EXISTS",
                            redisKey)));
            assertFreeFor(y.template(), key);
        }
    }

    private static void assertFreeFor(DistributedLockTemplate other, String key) {
        Optional<LockHandle> handle = other.tryAcquire(key, Duration.ZERO, null);
        handle.ifPresent(LockHandle::close);
        assertThat(handle).as("another application's tryAcquire(%s, 0)", key).isPresent();
    }

    /** The checks of a run on one key: exclusive, never idle while someone waits, every application served. */
    abstract class OneKeyChecks {

        Contention run;

        @Test
        void noTwoSectionsOverlap() {
            assertNoOverlap(this.run);
        }

        @Test
        void theLockNeverLiesIdleWhileSomeoneWaits() {
            assertNoIdleGap(this.run);
        }

        @Test
        void everyApplicationGetsItsTurn() {
            assertRotation(this.run);
        }
    }

    /**
     * Three applications with three threads each loop on one key for 6 s with a 1 ms critical section, a
     * renewed or fixed lease at random, 10 s wait. Someone always waits, so the lock should never lie idle; the
     * threads of one application pass it among themselves, within bounds that let the others have their turn.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OneKeyUnderContention extends OneKeyChecks {

        @BeforeAll
        void contend() throws Exception {
            this.run = Contention.run(redis.server(), List.of("hot"));
        }

        @Test
        void threadsOfOneApplicationPassTheLockAmongThemselves() {
            // What the checks above covered: the lock also went from thread to thread within an application.
            assertThat(this.run.log().passedWithinAnApplication()).as("sections passed on within an application")
                .isGreaterThan(this.run.log().sections() / 4);
        }
    }

    /**
     * The same with {@code redis-lock.local-handover-rejoin}: a thread coming back during its application's turn is
     * passed the lock again in it, so turns run up to the hand-over limits.
     */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class OneKeyUnderContentionWithRejoin extends OneKeyChecks {

        @BeforeAll
        void contend() throws Exception {
            this.run = Contention.run(redis.server(), List.of("hot"), "redis-lock.local-handover-rejoin=true");
        }
    }

    /** The same with four keys, each thread picking one at random for every call. */
    @Nested
    @TestInstance(TestInstance.Lifecycle.PER_CLASS)
    class FourKeysUnderContention {

        private Contention run;

        @BeforeAll
        void contend() throws Exception {
            this.run = Contention.run(redis.server(), List.of("hot-1", "hot-2", "hot-3", "hot-4"));
        }

        @Test
        void noTwoSectionsOverlap() {
            assertNoOverlap(this.run);
        }

        @Test
        void noKeyLiesIdleWhileSomeoneWaitsForIt() {
            assertNoIdleGap(this.run);
        }

        @Test
        void everyApplicationGetsItsTurn() {
            assertRotation(this.run);
        }
    }

    private static void assertNoOverlap(Contention run) {
        assertThat(run.log().sections()).as("sections run").isGreaterThan(0);
        assertThat(run.log().maxConcurrent()).as("sections inside one key at once").isEqualTo(1);
        assertThat(run.log().overlappingPairs()).as("overlapping sections").isZero();
        assertThat(run.log().fencesNotIncreasing()).as("sections whose fencing token did not grow").isZero();
    }

    private static void assertNoIdleGap(Contention run) {
        // The first half second is left out: connections and subscriptions are still being opened. Time in which
        // this JVM could run no thread (a loaded machine, a collection) is not the lock's idleness: the stall meter
        // measured it, and it is taken off the gap it fell in.
        Duration idle = run.log().longestIdleWhileAsked(run.startedAt() + TimeUnit.MILLISECONDS.toNanos(500),
                run.stoppedAt(), (from, until) -> run.stalls().stalledWithin(from, until).toNanos());
        assertThat(idle).as("longest time a key lay free while someone asked for it, stalls of this JVM taken off "
                + "(%s sections, %s failed calls, longest stall %s)", run.log().sections(), run.log().failures().size(),
                run.stalls().longest()).isLessThan(Duration.ofMillis(250));
    }

    private static void assertRotation(Contention run) {
        Map<Integer, Integer> perApplication = run.log().sectionsPerApplication();
        int total = run.log().sections();
        assertThat(perApplication).as("sections per application").hasSize(Contention.APPLICATIONS);
        assertThat(perApplication.values()).as("sections per application of %s: %s", total, perApplication)
                .allSatisfy((count) -> assertThat(count * 10).isGreaterThanOrEqualTo(total));
    }

    /** A recorded run of several applications' threads looping on a set of keys. */
    record Contention(SectionLog log, long startedAt, long stoppedAt, StallMeter stalls) {

        static final int APPLICATIONS = 3;

        static final int THREADS_PER_APPLICATION = 3;

        /** 6 s by default; {@code -Dcontention.seconds=25} runs past every internal timer several times over. */
        static final Duration LENGTH = Duration.ofSeconds(Long.getLong("contention.seconds", 6));

        /** @param properties more settings of every application */
        static Contention run(RedisServer redis, List<String> keys, String... properties) throws Exception {
            SectionLog log = new SectionLog();
            StallMeter stalls = StallMeter.start();
            List<LockApplication> applications = new ArrayList<>();
            List<Background<Void>> threads = new ArrayList<>();
            CyclicBarrier start = new CyclicBarrier(APPLICATIONS * THREADS_PER_APPLICATION + 1);
            AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);
            try {
                for (int a = 0; a < APPLICATIONS; a++) {
                    // A 3 s lease: renewals (every second) and queue-entry expiry (3 s) happen during the run.
                    List<String> settings = new ArrayList<>(List.of("redis-lock.lease-time=3s"));
                    settings.addAll(List.of(properties));
                    applications.add(LockApplication.start(redis, settings.toArray(String[]::new)));
                }
                // Every application listens for hand-offs before the run starts. Until its subscription is
                // confirmed, an application finds a lock handed to it only at its next timed look (as documented),
                // and on a loaded machine that confirmation came seconds after the first wait, well past the half
                // second the idle check leaves out: the key lay idle for 337 and 487 ms with a hand-off no message
                // had announced. Any wait subscribes, as a waiting thread joins its line before its first attempt.
                for (LockApplication application : applications) {
                    application.template().run("subscribe-first", Duration.ofSeconds(10), null, () -> {
                    });
                }
                await("every application's hand-off subscription").atMost(Duration.ofSeconds(30))
                    .until(() -> ((List<?>) redis.command("PUBSUB", "CHANNELS", "*~lock~handoff:*")).size()
                            == APPLICATIONS);
                for (int a = 0; a < APPLICATIONS; a++) {
                    int application = a;
                    DistributedLockTemplate template = applications.get(a).template();
                    for (int t = 0; t < THREADS_PER_APPLICATION; t++) {
                        threads.add(Background.start("app-" + a + "-thread-" + t, () -> {
                            start.await(30, TimeUnit.SECONDS);
                            loop(template, application, keys, log, stopAt.get());
                            return null;
                        }));
                    }
                }
                long startedAt = System.nanoTime();
                stopAt.set(startedAt + LENGTH.toNanos());
                start.await(30, TimeUnit.SECONDS);
                for (Background<Void> thread : threads) {
                    thread.get(Duration.ofSeconds(60));
                }
                return new Contention(log, startedAt, stopAt.get(), stalls);
            }
            finally {
                stalls.close();
                for (Background<Void> thread : threads) {
                    thread.close();
                }
                applications.forEach(LockApplication::close);
            }
        }

        private static void loop(DistributedLockTemplate template, int application, List<String> keys,
                SectionLog log, long stopAt) {
            while (System.nanoTime() < stopAt) {
                String key = keys.get(ThreadLocalRandom.current().nextInt(keys.size()));
                long askedAt = System.nanoTime();
                try {
                    // Renewed and fixed leases mixed: a lock passed between threads of one application is then
                    // used as it is, or first extended to the next holder's lease.
                    Duration lease = ThreadLocalRandom.current().nextBoolean() ? null : Duration.ofSeconds(2);
                    template.run(key, Duration.ofSeconds(10), lease, () -> {
                        long entered = log.enter(key);
                        busyFor(TimeUnit.MILLISECONDS.toNanos(1));
                        log.exit(application, key, askedAt, entered,
                                LockContext.current().orElseThrow().fencingToken());
                    });
                }
                catch (LockException ex) {
                    log.failed(application, key, askedAt, ex);
                }
            }
        }

        private static void busyFor(long nanos) {
            long until = System.nanoTime() + nanos;
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch, Duration timeout) {
        try {
            latch.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
