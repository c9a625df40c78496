package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Another client of the same Redis, allowed to write a lock's companion keys, plants entries in its queue of
 * waiting applications. A release reads them back and must trust none: it runs no command but the two publish
 * commands, publishes only in the library's hand-off namespace, hands the lock on only for a sane lease, and
 * does a bounded amount of work however long the planted queue is.
 */
class PlantedQueueEntryTest {

    private static final String KEY = "job";

    private static final String PLANTED_ID = "AAAAAAAAAAAAAAAAAAAAAA";

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static LettuceConnectionFactory connections;

    private static RedisLockClient client;

    @BeforeAll
    static void startRedis() {
        connections = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        client = new RedisLockClient(connections, "");
    }

    @AfterAll
    static void stopRedis() {
        client.close();
        connections.destroy();
    }

    @Test
    void aPlantedCommandIsNeverRunByARelease() {
        redis.command("SET", "victim:important", "data");
        releaseWithPlantedEntry(PLANTED_ID, validUntil() + ":30000:DEL:victim:important");
        assertThat(redis.command("GET", "victim:important")).isEqualTo("data");
        assertThat(redis.command("EXISTS", KEY)).isEqualTo(0L);
    }

    @Test
    void aPlantedAbsurdLeaseIsNotHandedTheLock() {
        releaseWithPlantedEntry(PLANTED_ID, validUntil() + ":9999999999999:PUBLISH:" + channel());
        assertThat(redis.command("EXISTS", KEY)).isEqualTo(0L);
    }

    @Test
    void aPlantedZeroLeaseNeitherFailsTheReleaseNorKeepsTheLock() {
        LockHandle holder = releaseWithPlantedEntry(PLANTED_ID, validUntil() + ":0:PUBLISH:" + channel());
        assertThat(holder.isLost()).isFalse();
        assertThat(redis.command("EXISTS", KEY)).isEqualTo(0L);
    }

    @Test
    void aPlantedChannelOutsideTheHandoffNamespaceGetsNoMessage() {
        releaseWithPlantedEntry(PLANTED_ID, validUntil() + ":30000:PUBLISH:orders");
        assertThat(redis.command("EXISTS", KEY)).isEqualTo(0L);
    }

    @Test
    void aPlantedClientIdThatNoApplicationCouldHaveIsNotHandedTheLock() {
        releaseWithPlantedEntry("x:1", validUntil() + ":30000:PUBLISH:" + channel());
        assertThat(redis.command("EXISTS", KEY)).isEqualTo(0L);
    }

    @Test
    void aWellFormedEntryIsStillHandedTheLock() {
        releaseWithPlantedEntry(PLANTED_ID, validUntil() + ":30000:PUBLISH:" + channel());
        assertThat(redis.command("GET", KEY)).asString().startsWith(PLANTED_ID + ":");
    }

    @Test
    void aReleaseThatKeepsTheKeyRunsNoPlantedCommand() {
        redis.command("SET", "victim:important", "data");
        LockHandle holder = client.acquire(LockRequest.of(KEY, Duration.ZERO, null).holdAtLeast(Duration.ofMinutes(1)));
        redis.command("RPUSH", KeySlots.queueKey(KEY), PLANTED_ID);
        redis.command("HSET", KeySlots.queueEntriesKey(KEY), PLANTED_ID, validUntil() + ":30000:DEL:victim:important");
        holder.close();
        assertThat(redis.command("GET", "victim:important")).isEqualTo("data");
        assertThat(redis.command("GET", KEY)).asString().startsWith("~kept:");
    }

    @Test
    void aReleaseThatKeepsTheKeyPublishesNothingOnAPlantedChannel() {
        List<String> received = new CopyOnWriteArrayList<>();
        RedisConnection subscriber = connections.getConnection();
        try {
            subscriber.subscribe((message, pattern) -> received.add(new String(message.getBody(), StandardCharsets.UTF_8)),
                    "orders".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> ((List<?>) redis.command("PUBSUB", "NUMSUB", "orders")).get(1).equals(1L));
            LockHandle holder = client.acquire(LockRequest.of(KEY, Duration.ZERO, null).holdAtLeast(Duration.ofMinutes(1)));
            redis.command("RPUSH", KeySlots.queueKey(KEY), PLANTED_ID);
            redis.command("HSET", KeySlots.queueEntriesKey(KEY), PLANTED_ID, validUntil() + ":30000:PUBLISH:orders");
            holder.close();
            // Redis delivers one subscription's messages in order: a message of the release would come before this.
            redis.command("PUBLISH", "orders", "after-the-release");
            await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("after-the-release"));
            assertThat(received).containsExactly("after-the-release");
        }
        finally {
            subscriber.close();
        }
    }

    @Test
    void aReleaseLooksAtABoundedNumberOfPlantedEntries() {
        LockHandle holder = acquire(client, List.of(KEY), 0, 30_000);
        String[] push = new String[2 + 8_000];
        push[0] = "RPUSH";
        push[1] = KeySlots.queueKey(KEY);
        for (int i = 2; i < push.length; i++) {
            push[i] = "planted-" + i;
        }
        redis.command(push);
        holder.close();
        assertThat(redis.command("EXISTS", KEY)).isEqualTo(0L);
        // Every planted item lacks an entry: the release dropped the first few and left the rest alone, instead
        // of walking (and, with a scan per item, re-walking) the whole list while Redis serves nobody else.
        assertThat((Long) redis.command("LLEN", KeySlots.queueKey(KEY))).isGreaterThan(7_900L);
    }

    private static LockHandle releaseWithPlantedEntry(String clientId, String entry) {
        LockHandle holder = acquire(client, List.of(KEY), 0, 30_000);
        redis.command("RPUSH", KeySlots.queueKey(KEY), clientId);
        redis.command("HSET", KeySlots.queueEntriesKey(KEY), clientId, entry);
        holder.close();
        return holder;
    }

    private static long validUntil() {
        return System.currentTimeMillis() + 60_000;
    }

    /** A channel in the hand-off namespace, as a waiting application of this Redis would name it. */
    private static String channel() {
        return KeySlots.handoffChannelPrefix("", KEY, false) + PLANTED_ID;
    }
}
