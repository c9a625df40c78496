package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.Sharing;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;


import static org.assertj.core.api.Assertions.assertThat;

/**
 * Read locks and semaphores on a three-master Redis Cluster, on Lettuce and on Jedis: a shared key's marker, queue
 * and holders live in the key's slot (a script may only touch keys of one slot), so keys with and without hash
 * tags are shared, renewed and handed on on their own node.
 */
@ParameterizedClass
@EnumSource(ClientLibrary.class)
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedClusterLockTest {

    private static final List<String> KEYS = List.of("doc:1", "doc:2", "order:{7}:doc", "a}b{c", "report:daily");

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static RedisCluster cluster;

    @Parameter
    ClientLibrary library;

    @RegisterExtension
    final TestApplications applications = new TestApplications(() -> this.library.connect(cluster, Duration.ofSeconds(5)));

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    private TestRedisClient application() {
        return this.applications.start();
    }

    @Test
    void readersShareKeysOfManySlotsAndAWriterOfAnotherApplicationIsHandedEachInTurn() throws Exception {
        TestRedisClient readers = application();
        TestRedisClient writers = application();
        for (String key : KEYS) {
            assertThat(KeySlots.slot(KeySlots.holdersKey(key))).as(key).isEqualTo(KeySlots.slot(key));
            LockHandle first = readers.acquire(LockRequest.of(key, WAIT, null).mode(LockMode.READ));
            LockHandle second = readers.acquire(LockRequest.of(key, WAIT, null).mode(LockMode.READ).nonReentrant());
            assertThat(cluster.nodeFor(key).command("ZCARD", KeySlots.holdersKey(key))).isEqualTo(2L);
            CompletableFuture<Long> writer = CompletableFuture.supplyAsync(() -> {
                try (LockHandle lock = writers.acquire(LockRequest.of(key, WAIT, null))) {
                    return lock.fencingToken();
                }
            }, TaskThreads.own());
            first.close();
            second.close();
            assertThat(writer.get(20, TimeUnit.SECONDS)).as(key).isGreaterThan(second.fencingToken());
        }
    }

    @Test
    void aSemaphoreOfTwoAdmitsAtMostTwoHoldersOfTwoApplications() throws Exception {
        List<TestRedisClient> applications = List.of(application(), application());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (TestRedisClient application : applications) {
            for (int t = 0; t < 3; t++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 10; i++) {
                        try (LockHandle permit = application.acquire(
                                LockRequest.of("pool:{9}", WAIT, null).permits(2))) {
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            // Work under the permit, long enough for the others to try their luck meanwhile.
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                            inside.decrementAndGet();
                        }
                    }
                }, TaskThreads.own()));
            }
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture<?>[0])).get(100, TimeUnit.SECONDS);
        assertThat(mostInside.get()).isBetween(1, Sharing.permits(2).permits());
        assertThat(cluster.nodeFor("pool:{9}").command("EXISTS", "pool:{9}")).isEqualTo(0L);
    }
}
