package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RespConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.NotifiedWaitingTest.awaitParkedForNotification;
import static io.github.redislock.redis.NotifiedWaitingTest.waiterThread;
import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Hand-off messages come from anyone allowed to publish on the application's channel. A forged one must cost
 * nothing for a key nobody here waits for, and the work messages do cause never runs on the thread that
 * renews leases, so that a flood of them cannot delay a renewal past the lease.
 */
class ForgedHandoffMessageTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.perTest();

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<TestRedisClient> clients = new ArrayList<>();

    @AfterEach
    void stopRedis() {
        this.clients.forEach(TestRedisClient::close);
        this.factories.forEach(TestConnections::destroy);
    }

    @Test
    void forgedMessagesForKeysNobodyWaitsForCostNoRedisCall() throws Exception {
        TestRedisClient holderClient = client(null);
        TestRedisClient waiterClient = client(null);
        LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
        List<LockHandle> handles = new ArrayList<>();
        awaitParkedForNotification(waiterThread(waiterClient, "hot", new CompletableFuture<>(), handles));
        String channel = KeySlots.handoffChannelPrefix("", "hot", false) + waiterClient.clientId();
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
            .until(() -> ((List<?>) redis.command("PUBSUB", "NUMSUB", channel)).get(1).equals(1L));
        redis.command("CONFIG", "RESETSTAT");
        try (RespConnection attacker = RespConnection.open(redis.server().host(), redis.server().port(),
                Duration.ofSeconds(5))) {
            for (int i = 0; i < 5_000; i++) {
                attacker.command("PUBLISH", channel, "forged-" + i);
            }
            // Messages arrive in order: once this one has made the waiter look at Redis, all the forged ones were
            // handled before it.
            attacker.command("PUBLISH", channel, "hot");
        }
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).until(() -> scriptCalls() >= 1);
        // No release went to Redis for a forged key: only a release (unlock.lua) removes queue entries.
        assertThat(commandCalls("hdel")).as((String) redis.command("INFO", "commandstats")).isZero();
        assertThat(commandCalls("lrem")).isZero();
        holder.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> handles.size() == 1);
        handles.forEach(LockHandle::close);
    }

    @Test
    void queueWorkNeverRunsOnTheRenewalScheduler() {
        AtomicInteger tasks = new AtomicInteger();
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1) {
            @Override
            public void execute(Runnable command) {
                tasks.incrementAndGet();
                super.execute(command);
            }
        };
        try {
            TestRedisClient holderClient = client(null);
            TestRedisClient waiterClient = client(scheduler);
            LockHandle holder = acquire(holderClient, List.of("hot"), 0, 30_000);
            // Queued, then gives up: its queue entry is taken out in the background.
            assertThat(acquire(waiterClient, List.of("hot"), Duration.ofMillis(200).toNanos(), 30_000)).isNull();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> redis.command("HLEN", KeySlots.queueEntriesKey("hot")).equals(0L));
            assertThat(tasks).hasValue(0);
            holder.close();
        }
        finally {
            scheduler.shutdownNow();
        }
    }

    private TestRedisClient client(@Nullable ScheduledThreadPoolExecutor scheduler) {
        LettuceConnectionFactory factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        // Only messages make the waiter look at Redis: no timed look within the test.
        TestRedisClient client = TestRedisClient.of(factory, "", Duration.ofSeconds(30), LockLossListener.NONE,
                scheduler, Duration.ofSeconds(60));
        this.clients.add(client);
        return client;
    }

    private long scriptCalls() {
        long calls = 0;
        for (String line : ((String) redis.command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                calls += field(line, "calls=") - field(line, "failed_calls=");
            }
        }
        return calls;
    }

    /** How often Redis ran the command (also inside scripts) since the statistics were reset. */
    private long commandCalls(String command) {
        for (String line : ((String) redis.command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                return field(line, "calls=");
            }
        }
        return 0;
    }

    private static long field(String line, String name) {
        int start = line.indexOf(name) + name.length();
        int end = line.indexOf(',', start);
        return Long.parseLong(line.substring(start, (end < 0) ? line.length() : end));
    }
}
