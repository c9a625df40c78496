package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;

class FencingTokenTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final List<LettuceConnectionFactory> factories = new ArrayList<>();

    @AfterAll
    static void stopRedis() {
        factories.forEach(LettuceConnectionFactory::destroy);
    }

    private static RedisLockClient newClient() {
        return new RedisLockClient(newFactory(), "");
    }

    private static LettuceConnectionFactory newFactory() {
        LettuceConnectionFactory factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        factories.add(factory);
        return factory;
    }

    @Test
    void fencingTokensStrictlyIncreaseAcross10000AcquisitionsBySeveralClientsAndCounterDeletions() throws Exception {
        List<RedisLockClient> clients = List.of(newClient(), newClient(), newClient());
        int threadsPerClient = 2;
        int target = 10_000;
        // Appended inside the critical section, so its order is the order in which the lock was held.
        List<Long> fences = java.util.Collections.synchronizedList(new ArrayList<>(target));
        AtomicInteger taken = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(clients.size() * threadsPerClient);
        CyclicBarrier start = new CyclicBarrier(clients.size() * threadsPerClient);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (RedisLockClient client : clients) {
                for (int t = 0; t < threadsPerClient; t++) {
                    futures.add(pool.submit(() -> {
                        start.await();
                        while (taken.get() < target) {
                            LockHandle handle = acquire(client, List.of("fenced"), 0, 10_000);
                            if (handle == null) {
                                continue;
                            }
                            try {
                                int n = taken.incrementAndGet();
                                if (n <= target) {
                                    fences.add(handle.fencingToken());
                                }
                                if (n % 1_000 == 0) {
                                    // As if the lock key, with the last fence in it, had expired or been
                                    // evicted: the next fence must still be higher.
                                    redis.command("DEL", "fenced");
                                }
                            }
                            finally {
                                handle.close();
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(fences).hasSize(target);
        for (int i = 1; i < fences.size(); i++) {
            assertThat(fences.get(i)).as("fence #%d", i).isGreaterThan(fences.get(i - 1));
        }
    }

    @Test
    void releaseDeletesTheKeyAndTheNextFenceIsStillHigher() {
        RedisLockClient client = newClient();
        long first;
        try (LockHandle handle = acquire(client, List.of("sku:1:lock"), 0, 5_000)) {
            first = handle.fencingToken();
            assertThat(redis.command("GET", "sku:1:lock")).isEqualTo(handle.token())
                    .isEqualTo(handle.token().substring(0, handle.token().indexOf(':')) + ":" + first);
        }
        assertThat(redis.command("EXISTS", "sku:1:lock")).isEqualTo(0L);
        try (LockHandle handle = acquire(client, List.of("sku:1:lock"), 0, 5_000)) {
            assertThat(handle.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void aReleaseMarkerOfTheEarlierEngineCountsAsFreeAndItsFenceAsAFloor() {
        RedisLockClient client = newClient();
        // What releases of redis-lock 0.1 left for one lease: '~:<last fence>'; here far ahead of the clock.
        long ahead;
        try (LockHandle handle = acquire(client, List.of("sku:3:lock"), 0, 5_000)) {
            ahead = handle.fencingToken() + 3_600_000_000L;
        }
        redis.command("SET", "sku:3:lock", "~:" + ahead, "PX", "5000");
        try (LockHandle handle = acquire(client, List.of("sku:3:lock"), 0, 5_000)) {
            assertThat(handle.fencingToken()).isEqualTo(ahead + 1);
        }
    }

    @Test
    void fenceIsRedisTimeInMicroseconds() {
        RedisLockClient client = newClient();
        List<?> before = (List<?>) redis.command("TIME");
        long lower = Long.parseLong((String) before.get(0)) * 1_000_000 + Long.parseLong((String) before.get(1));
        try (LockHandle handle = acquire(client, List.of("sku:2:lock"), 0, 5_000)) {
            List<?> after = (List<?>) redis.command("TIME");
            long upper = Long.parseLong((String) after.get(0)) * 1_000_000 + Long.parseLong((String) after.get(1));
            assertThat(handle.fencingToken()).isBetween(lower, upper);
        }
    }

    private static final LockKey K = new LockKey("k");

    @Test
    void replayedAcquireSucceedsWithoutCountingTwice() {
        LockProtocol protocol = RedisLockClientTestSupport.protocol(newFactory());
        Attempt first = protocol.acquire(K, "token-a", 30_000, null, 0);
        String stored = (String) redis.command("GET", "k");
        // The same command again, as Lettuce replays it after a reconnect or a caller retries a lost reply.
        Attempt replay = protocol.acquire(K, "token-a", 30_000, null, 0);
        assertThat(first.isAcquired()).isTrue();
        assertThat(replay.isAcquired()).isTrue();
        assertThat(replay.fence()).isEqualTo(first.fence());
        assertThat(stored).isEqualTo("token-a:" + first.fence());
        assertThat(redis.command("GET", "k")).isEqualTo(stored);
        Attempt other = protocol.acquire(K, "token-b", 30_000, null, 0);
        assertThat(other.isAcquired()).isFalse();
        assertThat(other.holderTtlMillis()).as("remaining TTL of the holder").isBetween(1L, 30_000L);
    }

    @Test
    void replayedAcquireAfterLostReplyDoesNotReportNotAcquired() {
        // The first reply is lost: from the caller's view nothing happened, but Redis holds our token. The retry
        // with the same token must succeed rather than wait out our own lease.
        LockProtocol protocol = RedisLockClientTestSupport.protocol(newFactory());
        redis.command("SET", "k", "token-c:41", "PX", "30000");
        Attempt retry = protocol.acquire(K, "token-c", 30_000, null, 0);
        assertThat(retry.isAcquired()).isTrue();
        assertThat(retry.fence()).isEqualTo(41L);
        assertThat(redis.command("GET", "k")).isEqualTo("token-c:41");
    }

    @Test
    void aReleaseAfterLocalHandOversCountsTheNextFenceOnFromTheLastOneUsed() {
        LockProtocol protocol = RedisLockClientTestSupport.protocol(newFactory());
        Attempt taken = protocol.acquire(K, "token-d", 30_000, null, 0);
        // Threads of the application passed the lock on among themselves, using fences up to taken + 5, then
        // the last one released it: the next holder's fence is larger than all of them.
        assertThat(protocol.release(K, "token-d:" + taken.fence(), null, taken.fence() + 5)).isTrue();
        assertThat(protocol.acquire(K, "token-e", 30_000, null, 0).fence()).isGreaterThan(taken.fence() + 5);
    }

    @Test
    void localHandOversThatCountedPastTheClockLeaveTheirLastFenceAsAFloorUntilTheClockPassesIt() {
        LockProtocol protocol = RedisLockClientTestSupport.protocol(newFactory());
        Attempt taken = protocol.acquire(K, "token-f", 30_000, null, 0);
        // Never seen in practice (more than one local hand-over a microsecond), so forced: 2 s ahead of the clock.
        long ahead = taken.fence() + 2_000_000;
        assertThat(protocol.release(K, "token-f:" + taken.fence(), null, ahead)).isTrue();
        assertThat(redis.command("GET", "k")).isEqualTo("~:" + ahead);
        assertThat((Long) redis.command("PTTL", "k")).isBetween(1L, 2_001L);
        Attempt next = protocol.acquire(K, "token-g", 30_000, null, 0);
        assertThat(next.isAcquired()).as("the floor counts as free").isTrue();
        assertThat(next.fence()).isEqualTo(ahead + 1);
    }
}
