package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.support.ArrivalOrder;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Read locks and semaphores on one Redis, on Lettuce and on Jedis, as only this store keeps them: the marker under
 * the lock key and the holders beside it, the one queue that orders readers and writers of several applications,
 * expired holders dropped by the script that admits, and a write lock's commands untouched.
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedLocksTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final Duration WAIT = Duration.ofSeconds(20);

    /** Commands that are no part of a lock's cycle (see {@link #commandCalls}). */
    private static final List<String> IGNORED = List.of("info", "config", "client", "hello", "select", "ping",
            "subscribe", "unsubscribe", "psubscribe", "punsubscribe");

    @Parameter
    ClientLibrary library;

    @RegisterExtension
    final TestApplications applications = new TestApplications(
            () -> this.library.connect(redis.server(), Duration.ofSeconds(5)));

    private TestRedisClient application() {
        return this.applications.start();
    }

    private static LockRequest read(String key) {
        return LockRequest.of(key, WAIT, null).mode(LockMode.READ);
    }

    /**
     * Three applications: a reader holds; a writer of the second queues; a reader of the third arrives after it and,
     * though readers hold the key, queues behind the writer (one place each in the key's queue): it gets in after the
     * writer (see {@link ArrivalOrder}).
     */
    @Test
    void aReaderArrivingWhileAWriterWaitsGetsInOnlyAfterTheWriter() throws Exception {
        ArrivalOrder.readerBehindAWaitingWriter("doc", application(), application(), application(),
                () -> awaitQueued("doc", 1), () -> awaitQueued("doc", 2));
        awaitGone("doc");
    }

    /**
     * An application holds both permits of a semaphore and stops without a release or an extension (its store is
     * closed, as a process dies); a waiter of another application gets a permit within one lease of the crash, the
     * expired holders dropped by the script that let it in: nothing sweeps.
     */
    @Test
    void aCrashedHoldersPermitsComeBackToAWaiterWithinOneLease() throws Exception {
        TestRedisClient crashing = application();
        TestRedisClient waiting = application();
        long lease = 1_000;
        RedisLockStore store = crashing.store();
        String key = store.key("partner:api");
        Sharing two = Sharing.permits(2);
        LockTokens tokens = new LockTokens();
        long now = System.nanoTime();
        StoreLock first = store.take(key, tokens.next(), lease, false, now, two);
        StoreLock second = store.take(key, tokens.next(), lease, false, now, two);
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        store.close();
        long crashedAt = System.nanoTime();
        try (LockHandle permit = waiting.acquire(LockRequest.of("partner:api", WAIT, null).permits(2))) {
            assertThat(Duration.ofNanos(System.nanoTime() - crashedAt)).isLessThan(Duration.ofMillis(lease + 500));
            assertThat(permit.fencingToken()).isGreaterThan(Math.max(first.fencingToken(), second.fencingToken()));
            // The crashed holders' permits were taken one after the other: the waiter gets in once the first's
            // lease has run out, when the second's may have a moment left. Never more than two holders, the
            // waiter among them.
            assertThat((List<Object>) redis.command("ZRANGE", KeySlots.holdersKey(key), "0", "-1"))
                .contains(permit.token()).hasSizeLessThanOrEqualTo(2);
        }
        awaitGone("partner:api");
    }

    /**
     * A plain (write) lock asked on a key held as a semaphore fails at once with the one mismatch message, and
     * leaves no entry in the key's queue; the semaphore's holder keeps its permit.
     */
    @Test
    void aWriteLockOnASemaphoresKeyIsRefusedAtOnceNamingBothCounts() {
        TestRedisClient holder = application();
        TestRedisClient other = application();
        LockHandle permit = holder.acquire(LockRequest.of("pool", WAIT, null).permits(3));
        long before = System.nanoTime();
        assertThatExceptionOfType(LockException.class)
            .isThrownBy(() -> other.acquire(LockRequest.of("pool", WAIT, null)))
            .withMessage("Lock 'pool' is in use as a semaphore of 3 permits (3 permits), but this request asks for a "
                    + "write lock (1 permit): every user of one key must ask for the same number of permits");
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(WAIT);
        assertThat(redis.command("EXISTS", KeySlots.queueKey("pool"))).isEqualTo(0L);
        assertThat(permit.verifyHeld()).isTrue();
        permit.close();
        awaitGone("pool");
    }

    /**
     * One key, held in turn as a write lock, by two readers at once, as a write lock again, and once free as a
     * semaphore: every holder's fencing token is larger than every earlier holder's, whatever its kind.
     */
    @Test
    void fencingTokensGrowAcrossWriteLocksReadLocksAndPermits() throws Exception {
        TestRedisClient one = application();
        TestRedisClient two = application();
        List<Long> fences = new ArrayList<>();
        try (LockHandle write = one.acquire(LockRequest.of("ledger", WAIT, null))) {
            fences.add(write.fencingToken());
        }
        try (LockHandle reading = one.acquire(read("ledger"));
                LockHandle alsoReading = CompletableFuture.supplyAsync(() -> two.acquire(read("ledger")), TaskThreads.own())
                    .get(10, TimeUnit.SECONDS)) {
            fences.add(reading.fencingToken());
            fences.add(alsoReading.fencingToken());
        }
        try (LockHandle write = two.acquire(LockRequest.of("ledger", WAIT, null))) {
            fences.add(write.fencingToken());
        }
        awaitGone("ledger");
        try (LockHandle permit = one.acquire(LockRequest.of("ledger", WAIT, null).permits(3))) {
            fences.add(permit.fencingToken());
        }
        assertThat(fences).isSorted().doesNotHaveDuplicates();
        awaitGone("ledger");
    }

    /**
     * A write lock taken and released on a key nobody shares costs what it cost before read locks and semaphores:
     * two scripts and five commands inside them (TIME and SET; GET, LMOVE and DEL).
     */
    @Test
    void anUncontendedWriteLockCostsTheCommandsItAlwaysHas() {
        TestRedisClient client = application();
        client.acquire(LockRequest.of("warm-up", WAIT, null)).close();
        redis.command("CONFIG", "RESETSTAT");
        client.acquire(LockRequest.of("plain", WAIT, null)).close();
        assertThat(commandCalls()).as((String) redis.command("INFO", "commandstats")).isEqualTo(7);
    }

    /** A key another client made a Redis type other than a string is refused clearly, and left alone. */
    @Test
    void aKeyOfAnotherTypeIsRefusedClearly() {
        redis.command("ZADD", "report", "1", "someone else's");
        assertThatExceptionOfType(LockException.class).isThrownBy(() -> application().acquire(read("report")))
            .withMessage("Lock 'report' is a Redis key of another type, not a lock of this library: another client "
                    + "uses the name; not taken");
        assertThat(redis.command("ZCARD", "report")).isEqualTo(1L);
    }

    private static void awaitQueued(String key, long waiters) {
        await().atMost(Duration.ofSeconds(10))
            .until(() -> ((Number) redis.command("LLEN", KeySlots.queueKey(key))).longValue() == waiters);
    }

    private static void awaitGone(String key) {
        await().atMost(Duration.ofSeconds(10)).until(() -> ((Number) redis.command("EXISTS", key,
                KeySlots.holdersKey(key), KeySlots.queueKey(key), KeySlots.queueEntriesKey(key))).longValue() == 0);
    }

    /**
     * Every command Redis ran on data, scripts and the commands inside them alike; left out: this test's own INFO
     * and CONFIG, what a client library sends to set up a connection (CLIENT, HELLO, SELECT, PING), and
     * subscriptions, which clients of earlier tests on this server may still be closing.
     */
    private static long commandCalls() {
        long calls = 0;
        for (String line : ((String) redis.command("INFO", "commandstats")).split("\r\n")) {
            // Redis 7 counts subcommands apart: cmdstat_config|resetstat.
            String command = line.startsWith("cmdstat_") ? line.substring(8, line.indexOf(':')).split("\\|")[0] : "";
            if (!command.isEmpty() && !IGNORED.contains(command)) {
                int start = line.indexOf("calls=") + "calls=".length();
                calls += Long.parseLong(line.substring(start, line.indexOf(',', start)));
            }
        }
        return calls;
    }
}
