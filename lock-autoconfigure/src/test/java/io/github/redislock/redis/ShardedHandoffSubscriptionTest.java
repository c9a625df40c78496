package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisServer;
import io.lettuce.core.cluster.RedisClusterClient;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Sharded hand-off messages on a real 3-master cluster, including a slot that moves to another node. */
class ShardedHandoffSubscriptionTest {

    @Test
    void listensOnTheSlotOwnerAndFollowsTheSlotWhenItMoves() throws Exception {
        try (RedisCluster cluster = RedisCluster.start(3)) {
            RedisServer owner = cluster.nodeFor("sku:1:lock");
            assumeTrue(RedisVersion.atLeast(LettuceLockCommands.versionIn((String) owner.command("INFO", "server")),
                    7, 0), "sharded pub/sub needs Redis 7");
            LettuceConnectionFactory factory = new LettuceConnectionFactory(
                    new RedisClusterConfiguration(cluster.nodeAddresses()));
            factory.afterPropertiesSet();
            factory.start();
            ExecutorService executor = Executors.newSingleThreadExecutor();
            BlockingQueue<String> received = new LinkedBlockingQueue<>();
            ShardedHandoffSubscription subscription = new ShardedHandoffSubscription(
                    (RedisClusterClient) factory.getRequiredNativeClient(),
                    (message) -> received.add(new String(message, StandardCharsets.UTF_8)), executor);
            try {
                String channel = KeySlots.handoffChannelPrefix("", "sku:1:lock", true) + "client-1";
                assertThat(subscription.subscribe(channel)).isTrue();
                assertThat(subscription.subscribe(channel)).as("already subscribed").isFalse();
                awaitShardSubscribers(owner, channel);
                owner.command("SPUBLISH", channel, "before");
                assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("before");

                // Move the (key-less) slot to another master; the server ends the sharded subscription.
                long slot = (Long) owner.command("CLUSTER", "KEYSLOT", channel);
                RedisServer target = cluster.nodes().stream().filter((node) -> node != owner).findFirst().orElseThrow();
                String targetId = (String) target.command("CLUSTER", "MYID");
                List<RedisServer> order = new ArrayList<>(List.of(target, owner));
                cluster.nodes().stream().filter((node) -> !order.contains(node)).forEach(order::add);
                for (RedisServer node : order) {
                    node.command("CLUSTER", "SETSLOT", Long.toString(slot), "NODE", targetId);
                }
                awaitShardSubscribers(target, channel);
                target.command("SPUBLISH", channel, "after");
                assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("after");
            }
            finally {
                subscription.close();
                executor.shutdownNow();
                factory.destroy();
            }
        }
    }

    private static void awaitShardSubscribers(RedisServer node, String channel) {
        await("a sharded subscriber for " + channel + " on " + node).atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> ((List<?>) node.command("PUBSUB", "SHARDNUMSUB", channel)).get(1).equals(1L));
    }
}
