package io.github.redislock.redis;

import io.github.redislock.LockValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.testsupport.ManualScheduler;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.SilenceMeter;
import io.github.redislock.testsupport.StallMeter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;

/** The watchdog and the loss signals, on a real Redis that the tests pause, kill and restart; on Lettuce and Jedis. */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
class LeaseRenewalTest {

    @Parameter
    ClientLibrary library;

    private static final Duration LEASE = Duration.ofMillis(600);

    /** The lease of the ticked tests: so long that only the test's ticks and PEXPIREs change a TTL. */
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);

    /** The command timeout of clients whose commands' timing is not what a test judges. */
    private static final Duration PROBE_COMMAND_TIMEOUT = Duration.ofSeconds(5);

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.perTest();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<RedisLockClient> clients = new ArrayList<>();

    private final BlockingQueue<Loss> losses = new LinkedBlockingQueue<>();

    record Loss(String key, String token, long fence, LockLossDetection detection, long atNanos) {
    }

    @AfterEach
    void stopRedis() {
        this.clients.forEach(RedisLockClient::close);
        this.factories.forEach(TestConnections::destroy);
    }

    private RedisLockClient client(ScheduledExecutorService scheduler) {
        return client(scheduler, LEASE);
    }

    private RedisLockClient client(ScheduledExecutorService scheduler, Duration lease) {
        // 300 ms: a renewal sent while Redis is paused must fail within the pause tests' bounds. The ticked tests
        // (a lease of LONG_LEASE or more) wait on no command timeout, and a first acquisition on a loaded machine
        // outlasted 300 ms ("Redis command timed out" in oneTickRenewsEveryHeldRenewedLockInOneScriptRun; "Read
        // timed out" at the 799th of oneRoundTripRenewsAThousandLocks' acquisitions, whose 10-minute lease missed
        // an equality test): they get 5 s, as the other engine tests do.
        return client(scheduler, lease,
                (lease.compareTo(LONG_LEASE) >= 0) ? PROBE_COMMAND_TIMEOUT : Duration.ofMillis(300));
    }

    private RedisLockClient client(ScheduledExecutorService scheduler, Duration lease, Duration commandTimeout) {
        RedisConnectionFactory factory = this.library.connect(redis.server(), commandTimeout);
        this.factories.add(factory);
        RedisLockClient client = new RedisLockClient(factory, "", lease,
                (key, token, fence, detection) -> this.losses.add(new Loss(key, token, fence, detection, System.nanoTime())),
                scheduler);
        this.clients.add(client);
        return client;
    }

    /**
     * Held through three leases, nobody else gets in. A loaded machine may still take the lock away as designed: when
     * this JVM or Redis stood still for a renewal period or more (a renewal then could not be answered in time, the
     * {@link SilenceMeter} saw it); the holder must then have stopped counting itself the holder before the contender
     * got in, and the loss must be told, once. A loss without such a silence fails the test.
     */
    @Test
    void renewedLockOutlivesThreeLeasesAndStaysExclusive() throws Exception {
        RedisLockClient holder = client(null);
        // The contender only asks; an answer slower than the holder's 300 ms (on a loaded machine) is still an answer.
        RedisLockClient contender = client(null, LEASE, PROBE_COMMAND_TIMEOUT);
        try (SilenceMeter silences = SilenceMeter.start(redis.server())) {
            long asked = System.nanoTime();
            LockHandle handle = acquire(holder, List.of("job"), 0, 0, true);
            long start = System.nanoTime();
            LockHandle intruder = null;
            boolean heldWhenIntruded = false;
            int attempts = 0;
            // Three leases from the take, and enough attempts in them however slowly each one runs.
            long leases = LEASE.multipliedBy(3).toNanos();
            while (intruder == null && (attempts <= 10 || System.nanoTime() - start < leases)) {
                intruder = RedisLockClientTest.onOtherThread(() -> acquire(contender, List.of("job"), 0, 60_000));
                heldWhenIntruded = handle.isHeld();
                attempts++;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            boolean kept = intruder == null && handle.isHeld() && handle.token().equals(redis.command("GET", "job"));
            handle.close();
            long end = System.nanoTime();
            if (intruder != null) {
                intruder.close();
            }
            // A lost lock is told at the renewal tick after its lease ran out, or at its release (just done).
            Loss told = kept ? this.losses.poll() : this.losses.poll(10, TimeUnit.SECONDS);
            if (told == null) {
                assertThat(kept).as("not held after three leases, and no loss told").isTrue();
                assertThat(LockValues.held(redis.command("GET", "job"))).isFalse();
                return;
            }
            assertThat(silences.longestWithin(asked, end))
                    .as("lost after %d ms (contender in: %s) with no silence of a renewal period",
                            TimeUnit.NANOSECONDS.toMillis(end - start), intruder != null)
                    .isGreaterThanOrEqualTo(holder.renewalPeriod());
            assertThat(heldWhenIntruded && intruder != null)
                    .as("the holder still counted itself the holder when the contender got in").isFalse();
            assertThat(told.token()).isEqualTo(handle.token());
            assertThat(this.losses).as("the loss is told once").isEmpty();
        }
    }

    @Test
    void oneRoundTripRenewsAThousandLocks() {
        // A long lease, so no scheduled tick runs during the measured one.
        RedisLockClient client = client(Executors.newSingleThreadScheduledExecutor(), Duration.ofMinutes(10));
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            handles.add(acquire(client, List.of("many:" + i), 0, 0, true));
        }
        redis.command("CONFIG", "RESETSTAT");
        client.renewNow();
        String stats = (String) redis.command("INFO", "commandstats");
        assertThat(scriptCalls(stats)).isEqualTo(1);
        assertThat(stats).contains("cmdstat_pexpire:calls=1000");
        handles.forEach(LockHandle::close);
    }

    @Test
    void oneTickRenewsEveryHeldRenewedLockInOneScriptRun() {
        ManualScheduler scheduler = new ManualScheduler();
        RedisLockClient client = client(scheduler, LONG_LEASE);
        List<String> keys = List.of("a", "b", "c");
        List<LockHandle> handles = new ArrayList<>();
        for (String key : keys) {
            handles.add(acquire(client, List.of(key), 0, 0, true));
        }
        assertThat(scheduler.periods()).as("one renewal task, every third of the lease")
                .containsExactly(Duration.ofSeconds(10));
        for (int round = 1; round <= 2; round++) {
            for (String key : keys) {
                redis.command("PEXPIRE", key, "1000");
            }
            redis.command("CONFIG", "RESETSTAT");
            scheduler.tick();
            String stats = (String) redis.command("INFO", "commandstats");
            assertThat(scriptCalls(stats)).as("script runs in tick %d", round).isEqualTo(1);
            assertThat(stats).contains("cmdstat_pexpire:calls=3,");
            for (int i = 0; i < keys.size(); i++) {
                assertThat(redis.command("GET", keys.get(i))).isEqualTo(handles.get(i).token());
                assertThat((Long) redis.command("PTTL", keys.get(i))).as("PTTL of %s", keys.get(i))
                        .isBetween(LONG_LEASE.minusSeconds(1).toMillis(), LONG_LEASE.toMillis());
            }
        }
        assertThat(handles).allMatch(LockHandle::isHeld);
        handles.forEach(LockHandle::close);
        assertThat(this.losses).isEmpty();
    }

    @Test
    void tickAfterTheKeyWasDeletedBehindOurBackMarksTheLockLostAndSignalsOnce() {
        ManualScheduler scheduler = new ManualScheduler();
        RedisLockClient client = client(scheduler, LONG_LEASE);
        LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
        redis.command("DEL", "job");
        assertThat(handle.isHeld()).as("nothing has looked at Redis yet").isTrue();
        scheduler.tick();
        assertThat(handle.isHeld()).isFalse();
        assertThat(handle.isLost()).isTrue();
        assertThat(this.losses).singleElement().satisfies((loss) -> {
            assertThat(loss.key()).isEqualTo("job");
            assertThat(loss.token()).isEqualTo(handle.token());
            assertThat(loss.fence()).isEqualTo(handle.fencingToken());
            assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
        });
        scheduler.tick();
        handle.close();
        scheduler.tick();
        assertThat(this.losses).as("the loss is signalled once").hasSize(1);
        assertThat(redis.command("EXISTS", "job")).as("renewal never recreates a key").isEqualTo(0L);
    }

    @Test
    void tickAfterCloseNeitherRenewsNorRecreatesTheKey() {
        ManualScheduler scheduler = new ManualScheduler();
        RedisLockClient client = client(scheduler, LONG_LEASE);
        LockHandle kept = acquire(client, List.of("kept"), 0, 0, true);
        LockHandle closed = acquire(client, List.of("closed"), 0, 0, true);
        closed.close();
        assertThat(redis.command("EXISTS", "closed")).isEqualTo(0L);
        redis.command("CONFIG", "RESETSTAT");
        scheduler.tick();
        assertThat((String) redis.command("INFO", "commandstats"))
                .as("only the lock still held is renewed").contains("cmdstat_pexpire:calls=1,");
        assertThat(redis.command("EXISTS", "closed")).isEqualTo(0L);
        kept.close();
        redis.command("CONFIG", "RESETSTAT");
        scheduler.tick();
        String stats = (String) redis.command("INFO", "commandstats");
        assertThat(scriptCalls(stats)).as("nothing left to renew, nothing sent").isZero();
        assertThat(redis.command("DBSIZE")).isEqualTo(0L);
        assertThat(this.losses).isEmpty();
    }

    @Test
    void fixedLeaseLocksAreNeverRenewedByTicks() {
        ManualScheduler scheduler = new ManualScheduler();
        RedisLockClient client = client(scheduler, LONG_LEASE);
        LockHandle fixed = acquire(client, List.of("fixed"), 0, LONG_LEASE.toMillis());
        assertThat(scheduler.periods()).as("no renewal task for fixed leases alone").isEmpty();
        LockHandle renewed = acquire(client, List.of("renewed"), 0, 0, true);
        redis.command("PEXPIRE", "fixed", "5000");
        redis.command("PEXPIRE", "renewed", "5000");
        redis.command("CONFIG", "RESETSTAT");
        scheduler.tick();
        scheduler.tick();
        assertThat((String) redis.command("INFO", "commandstats")).contains("cmdstat_pexpire:calls=2,");
        assertThat((Long) redis.command("PTTL", "fixed")).isBetween(0L, 5000L);
        assertThat((Long) redis.command("PTTL", "renewed")).isGreaterThan(5000L);
        assertThat(fixed.isHeld()).isTrue();
        fixed.close();
        renewed.close();
        assertThat(this.losses).isEmpty();
    }

    @Test
    void renewalNeverTouchesAKeyThatIsNotOursAndSignalsTheLoss() throws Exception {
        // A long lease: the key is taken from us by the test, not by a loaded machine outlasting a short lease.
        RedisLockClient client = client(Executors.newSingleThreadScheduledExecutor(), LONG_LEASE);
        LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
        redis.command("SET", "job", "someone-else", "PX", "5000");
        client.renewNow();
        Loss loss = this.losses.poll(5, TimeUnit.SECONDS);
        assertThat(loss).isNotNull();
        assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
        assertThat(loss.key()).isEqualTo("job");
        assertThat(loss.token()).isEqualTo(handle.token());
        assertThat(loss.fence()).isEqualTo(handle.fencingToken());
        assertThat(handle.isHeld()).isFalse();
        assertThat(redis.command("GET", "job")).isEqualTo("someone-else");
        assertThat((Long) redis.command("PTTL", "job")).isLessThanOrEqualTo(5000L);
        handle.close();
        assertThat(redis.command("GET", "job")).as("release must not delete another holder's key")
                .isEqualTo("someone-else");
        assertThat(this.losses).as("the loss is signalled once").isEmpty();
    }

    @Test
    void renewalNeverOutlivesTheRelease() throws Exception {
        // A long lease: what races the release is renewNow, and a machine stalled past a short lease between a take
        // and its release would make the release find the key expired (a loss by design, not the race under test).
        RedisLockClient client = client(Executors.newSingleThreadScheduledExecutor(), LONG_LEASE);
        for (int i = 0; i < 200; i++) {
            LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
            CountDownLatch go = new CountDownLatch(1);
            Thread renewing = new Thread(() -> {
                awaitQuietly(go);
                client.renewNow();
            });
            renewing.start();
            go.countDown();
            handle.close();
            renewing.join();
            client.renewNow();
            assertThat(LockValues.held(redis.command("GET", "job"))).as("iteration %d", i).isFalse();
        }
        assertThat(this.losses).isEmpty();
    }

    @Test
    void starvedRenewalReportsTheLossWithinOneRenewalPeriodOfRunningAgain() throws Exception {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        // No command of this client waits on a stalled Redis: its command timeout is not what is judged.
        RedisLockClient client = client(scheduler, LEASE, PROBE_COMMAND_TIMEOUT);
        LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
        CountDownLatch unblock = new CountDownLatch(1);
        scheduler.execute(() -> awaitQuietly(unblock)); // the renewal thread is starved from here on
        RedisLockClientTestSupport.awaitGone(redis.server(), "job");
        assertThat(handle.isHeld()).as("the local lease estimate ran out too").isFalse();
        try (StallMeter stalls = StallMeter.start()) {
            long resumed = System.nanoTime();
            unblock.countDown();
            Loss loss = this.losses.poll(10, TimeUnit.SECONDS);
            assertThat(loss).isNotNull();
            assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
            assertThat(reportedAfter(resumed, loss, stalls)).isLessThanOrEqualTo(client.renewalPeriod());
        }
        handle.close();
        scheduler.shutdownNow();
    }

    /** How long after {@code from} the loss was told, less the time this JVM could run no thread in between. */
    private static Duration reportedAfter(long from, Loss loss, StallMeter stalls) {
        return Duration.ofNanos(loss.atNanos() - from).minus(stalls.stalledWithin(from, loss.atNanos()));
    }

    @Test
    void redisPausedPastTheLeaseIsReportedAsLossWithinOneRenewalPeriodAfterResuming() throws Exception {
        RedisLockClient client = client(null);
        LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
        try (StallMeter stalls = StallMeter.start()) {
            redis.server().pause();
            long resumed;
            try {
                LockSupport.parkNanos(LEASE.multipliedBy(2).toNanos()); // the fault being injected: a long pause
                assertThat(handle.isHeld()).isFalse();
            }
            finally {
                redis.server().resume();
                resumed = System.nanoTime();
            }
            Loss loss = this.losses.poll(10, TimeUnit.SECONDS);
            assertThat(loss).isNotNull();
            assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
            // A renewal sent during the pause may still be waiting out its 300 ms command timeout.
            assertThat(reportedAfter(resumed, loss, stalls))
                    .isLessThanOrEqualTo(client.renewalPeriod().plusMillis(300 + 100));
        }
        handle.close();
    }

    /**
     * A renewal that cannot reach Redis confirms nothing: once the lease has run out by the local clock (and so in
     * Redis, which started it later), the lock is reported lost at the next tick while Redis is still frozen, not
     * when it comes back, and it is renewed no more; its release finds the key gone and says nothing again.
     */
    @Test
    void redisFrozenPastTheLeaseIsReportedAsLossWhileStillFrozen() throws Exception {
        RedisLockClient client = client(null);
        LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
        Loss loss;
        redis.server().pause();
        try {
            loss = this.losses.poll(10, TimeUnit.SECONDS);
        }
        finally {
            redis.server().resume();
        }
        assertThat(loss).isNotNull();
        assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
        assertThat(handle.isLost()).isTrue();
        assertThat(handle.isHeld()).isFalse();
        handle.close();
        assertThat(redis.command("EXISTS", "job")).isEqualTo(0L);
        assertThat(this.losses).isEmpty();
    }

    @Test
    void redisKilledAndRestartedMidHoldIsDetectedAsLoss() throws Exception {
        RedisLockClient client = client(null);
        LockHandle handle = acquire(client, List.of("job"), 0, 0, true);
        redis.server().kill();
        redis.server().restart();
        Loss loss = this.losses.poll(10, TimeUnit.SECONDS);
        assertThat(loss).isNotNull();
        assertThat(loss.key()).isEqualTo("job");
        assertThat(loss.detection()).isEqualTo(LockLossDetection.RENEWAL);
        assertThat(handle.isHeld()).isFalse();
        handle.close();
        assertThat(this.losses).isEmpty();
    }

    @Test
    void fixedLeaseExpiredBeforeReleaseIsReportedAtRelease() throws Exception {
        RedisLockClient client = client(null);
        LockHandle handle = acquire(client, List.of("job"), 0, 100, false);
        RedisLockClientTestSupport.awaitGone(redis.server(), "job");
        handle.close();
        Loss loss = this.losses.poll(5, TimeUnit.SECONDS);
        assertThat(loss).isNotNull();
        assertThat(loss.detection()).isEqualTo(LockLossDetection.RELEASE);
    }

    /** Script runs: an EVALSHA refused with NOSCRIPT (first use on this server) is retried as EVAL. */
    private static int scriptCalls(String commandStats) {
        int calls = 0;
        for (String line : commandStats.split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += field(line, "calls=") - field(line, "failed_calls=");
            }
        }
        return calls;
    }

    private static int field(String line, String name) {
        int start = line.indexOf(name) + name.length();
        int end = line.indexOf(',', start);
        return Integer.parseInt(line.substring(start, (end < 0) ? line.length() : end));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
