package io.github.redislock.core;

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
import io.github.redislock.support.TestConnections;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

class FencingTokenTest {

    private static RedisServer redis;

    private static final List<LettuceConnectionFactory> factories = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        factories.forEach(LettuceConnectionFactory::destroy);
        redis.close();
    }

    @AfterEach
    void flush() {
        redis.flushAll();
    }

    private static RedisLockClient newClient() {
        LettuceConnectionFactory factory = TestConnections.lettuce(redis, Duration.ofSeconds(5));
        factories.add(factory);
        return new RedisLockClient(factory, "");
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
        String counter = KeySlots.fenceKey("fenced");
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (RedisLockClient client : clients) {
                for (int t = 0; t < threadsPerClient; t++) {
                    futures.add(pool.submit(() -> {
                        start.await();
                        while (taken.get() < target) {
                            LockHandle handle = client.acquire(List.of("fenced"), 0, 10_000);
                            if (handle == null) {
                                continue;
                            }
                            try {
                                int n = taken.incrementAndGet();
                                if (n <= target) {
                                    fences.add(handle.fencingToken());
                                }
                                if (n % 1_000 == 0) {
                                    // As if the counter key had expired or been evicted.
                                    redis.command("DEL", counter);
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
    void counterKeyIsNotEternal() {
        RedisLockClient client = newClient();
        try (LockHandle handle = client.acquire(List.of("sku:1:lock"), 0, 5_000)) {
            long ttl = (Long) redis.command("PTTL", KeySlots.fenceKey("sku:1:lock"));
            assertThat(ttl).isBetween(1L, 5_000L);
        }
    }

    @Test
    void replayedAcquireSucceedsWithoutCountingTwice() {
        RedisLockClient client = newClient();
        String counter = KeySlots.fenceKey("k");
        long[] first = client.tryAcquire("k", counter, "token-a", 30_000);
        String counted = (String) redis.command("GET", counter);
        // The same command again, as Lettuce replays it after a reconnect or a caller retries a lost reply.
        long[] replay = client.tryAcquire("k", counter, "token-a", 30_000);
        assertThat(first[0]).isEqualTo(1L);
        assertThat(replay).containsExactly(1L, first[1]);
        assertThat(redis.command("GET", counter)).isEqualTo(counted);
        assertThat(redis.command("GET", "k")).isEqualTo("token-a");
        long[] other = client.tryAcquire("k", counter, "token-b", 30_000);
        assertThat(other[0]).isZero();
        assertThat(other[1]).as("remaining TTL of the holder").isBetween(1L, 30_000L);
    }

    @Test
    void replayedAcquireAfterLostReplyDoesNotReportNotAcquired() {
        // The first reply is lost: from the caller's view nothing happened, but Redis holds our token. The retry
        // with the same token must succeed rather than wait out our own lease.
        RedisLockClient client = newClient();
        String counter = KeySlots.fenceKey("k");
        redis.command("SET", "k", "token-c", "PX", "30000");
        redis.command("SET", counter, "41");
        long[] retry = client.tryAcquire("k", counter, "token-c", 30_000);
        assertThat(retry).containsExactly(1L, 41L);
        assertThat(redis.command("GET", counter)).isEqualTo("41");
    }
}
