package io.github.redislock.redlock;

import java.time.Duration;
import java.util.List;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.support.LockScripts;
import io.github.redislock.testsupport.RedlockMasters;
import io.lettuce.core.AbstractRedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder's extension of a renewed Redlock lock while the last renewal round's call to one node is still on its
 * way there (the round returned once a majority answered): the extension reaches that node after the renewal, so
 * the node keeps the key for the fixed lease asked for, not the renewed one. Judged by the node's own PTTL. The calls
 * go over pooled connections, where one node's calls can overtake each other.
 */
class RedlockExtensionOrderTest {

    private static final String KEY = "redlock:extension-order";

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private RedlockClient client;

    @AfterEach
    void closeClient() {
        if (this.client != null) {
            this.client.close();
        }
    }

    @Test
    void anExtensionReachesASlowNodeAfterTheRenewalOnItsWayThere() throws Exception {
        List<RedisConnectionFactory> nodes = masters.connect(Duration.ofSeconds(5));
        // Connections from a pool, not one shared connection per node: on a shared connection, once it is known,
        // every call to a node goes out in the order it was made, from the caller's thread, so a renewal can only
        // be overtaken where calls go over several connections, as here (and on Jedis).
        nodes.forEach((node) -> ((LettuceConnectionFactory) node).setShareNativeConnection(false));
        HeldBackScript slow = new HeldBackScript();
        ((AbstractRedisClient) ((LettuceConnectionFactory) nodes.get(2)).getNativeClient()).addListener(slow);
        // The renewal script known to every node, so that the held call is the renewal itself (no NOSCRIPT retry).
        String renew = LockScripts.load("renew.lua", List.class).getScriptAsString();
        masters.all().forEach((master) -> master.command("SCRIPT", "LOAD", renew));
        this.client = new RedlockClient(nodes, "", Duration.ofSeconds(40), LockLossListener.NONE);
        try (LockHandle handle = this.client.acquire(LockRequest.of(KEY, Duration.ZERO, null))) {
            // Every node's acquisition answered: the next script call to the slow node is the renewal's.
            await().until(() -> masters.all().stream().allMatch((master) -> master.command("GET", KEY) != null));
            slow.arm();
            Thread renewing = new Thread(this.client::renewNow);
            renewing.start();
            slow.awaitHeld();
            // The round is decided by the two other nodes; its call to the slow node is still on its way.
            renewing.join();
            assertThat(handle.extend(Duration.ofSeconds(3))).isTrue();
            slow.letGo();
            slow.awaitApplied();
            await().untilAsserted(() -> assertThat((Long) masters.get(2).command("PTTL", KEY)).isBetween(1L, 3_000L));
        }
    }
}
