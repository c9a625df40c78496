package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockException;
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

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.RedisLockClientTestSupport.acquire;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A caller who chooses lock names (a request value in a key template) cannot name a companion key of another
 * lock: companion keys lie in a namespace no lock name can produce.
 */
class CompanionNamespaceTest {

    private static final String ORDER = "{tenant-1}:order:42";

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static LettuceConnectionFactory connections;

    private static RedisLockClient holderClient;

    private static RedisLockClient waiterClient;

    @BeforeAll
    static void startRedis() {
        connections = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        holderClient = new RedisLockClient(connections, "");
        waiterClient = new RedisLockClient(connections, "");
    }

    @AfterAll
    static void stopRedis() {
        holderClient.close();
        waiterClient.close();
        connections.destroy();
    }

    @Test
    void aLockNameThatWouldBeAnotherLocksQueueIsRefused() {
        for (String companion : List.of(KeySlots.queueKey(ORDER), KeySlots.queueEntriesKey(ORDER))) {
            assertThatThrownBy(
                    () -> holderClient.acquire(LockRequest.of(companion, Duration.ZERO, Duration.ofSeconds(1))).close())
                .isInstanceOf(LockException.class)
                .hasMessageContaining(KeySlots.MARKER);
        }
    }

    @Test
    void theOrderIdOfTheFindingLocksSomethingElseAndWaitersOfTheOrderStillWait() {
        LockHandle order = acquire(holderClient, List.of(ORDER), 0, 30_000);
        // The id '42:queue' once made the lock key equal order 42's queue: waiters of order 42 then failed.
        LockHandle planted = acquire(holderClient, List.of(ORDER + ":queue"), 0, 30_000);
        assertThat(planted).isNotNull();
        assertThat(acquire(waiterClient, List.of(ORDER), Duration.ofMillis(300).toNanos(), 30_000)).isNull();
        order.close();
        planted.close();
        LockHandle next = acquire(waiterClient, List.of(ORDER), Duration.ofSeconds(5).toNanos(), 30_000);
        assertThat(next).isNotNull();
        next.close();
    }
}
