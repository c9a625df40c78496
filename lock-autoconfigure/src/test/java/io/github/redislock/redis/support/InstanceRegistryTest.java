package io.github.redislock.redis.support;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The instance registry on one real Redis, apart from any lock: its entries outlive their TTL while refreshed. */
class InstanceRegistryTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private final RedisConnectionFactory factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));

    @AfterEach
    void close() {
        TestConnections.destroy(this.factory);
    }

    @Test
    void anEntryIsRefreshedWithinItsTtl() {
        HolderView view = HolderView.forRedis(this.factory, "hv:");
        String id = LockTokens.randomId();
        view.registry().publish(new InstanceInfo("orders", "o", "h", 1), List.of(id), Duration.ofMillis(600));
        try {
            await().atMost(Duration.ofSeconds(5)).until(() -> view.registry().resolve(id) != null);
            // Refreshed every 200 ms: its PTTL keeps coming back up, so the entry outlives several TTLs.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (System.nanoTime() - deadline < 0) {
                assertThat(view.registry().resolve(id)).isNotNull();
                await().pollInterval(Duration.ofMillis(50)).atMost(Duration.ofSeconds(1))
                    .until(() -> (Long) redis.command("PTTL", KeySlots.instanceKey("hv:", id)) > 450);
            }
        }
        finally {
            view.registry().withdraw();
        }
        assertThat(view.registry().resolve(id)).isNull();
    }
}
