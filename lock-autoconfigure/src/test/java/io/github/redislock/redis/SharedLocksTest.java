package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;

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

    @Parameter
    ClientLibrary library;

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<TestRedisClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        this.clients.forEach(TestRedisClient::close);
        this.factories.forEach(TestConnections::destroy);
    }

    /** One application: an engine over a store of its own, on a connection factory of its own. */
    private TestRedisClient application() {
        RedisConnectionFactory factory = this.library.connect(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        TestRedisClient client = TestRedisClient.of(factory, "", Duration.ofSeconds(30), LockLossListener.NONE, null);
        this.clients.add(client);
        return client;
    }

    private static LockRequest read(String key) {
        return LockRequest.of(key, WAIT, null).mode(LockMode.READ);
    }

    /**
     * Three applications: a reader holds; a writer of the second queues; a reader of the third arrives after it and,
     * though readers hold the key, queues behind the writer. The order in which they get in, written down by this
     * test, is the order of arrival.
     */
    @Test
    void aReaderArrivingWhileAWriterWaitsGetsInOnlyAfterTheWriter() throws Exception {
        TestRedisClient first = application();
        TestRedisClient writing = application();
        TestRedisClient late = application();
        ConcurrentLinkedQueue<String> order = new ConcurrentLinkedQueue<>();
        LockHandle reader = first.acquire(read("doc"));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (LockHandle lock = writing.acquire(LockRequest.of("doc", WAIT, null))) {
                order.add("writer in");
                order.add("writer out");
            }
        });
        awaitQueued("doc", 1);
        CompletableFuture<Void> lateReader = CompletableFuture.runAsync(() -> {
            try (LockHandle lock = late.acquire(read("doc"))) {
                order.add("late reader in");
            }
        });
        awaitQueued("doc", 2);
        assertThat(order).as("nobody got in beside the first reader").isEmpty();
        reader.close();
        writer.get(10, TimeUnit.SECONDS);
        lateReader.get(10, TimeUnit.SECONDS);
        assertThat(order).containsExactly("writer in", "writer out", "late reader in");
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
            assertThat(redis.command("ZRANGE", KeySlots.holdersKey(key), "0", "-1"))
                .isEqualTo(List.of(permit.token()));
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
                LockHandle alsoReading = CompletableFuture.supplyAsync(() -> two.acquire(read("ledger")))
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

    /** Every command Redis ran, scripts and the commands inside them alike (INFO itself left out). */
    private static long commandCalls() {
        long calls = 0;
        for (String line : ((String) redis.command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_") && !line.startsWith("cmdstat_info:")
                    && !line.startsWith("cmdstat_config:")) {
                int start = line.indexOf("calls=") + "calls=".length();
                calls += Long.parseLong(line.substring(start, line.indexOf(',', start)));
            }
        }
        return calls;
    }
}
