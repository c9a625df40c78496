package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.support.TestConnections;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The holder view on three independent masters: the majority's answer, whatever one node says, and the holder
 * named through the registry entries on a majority of them.
 */
class RedlockHolderViewTest {

    private static final List<RedisServer> masters = new ArrayList<>();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<RedlockClient> clients = new ArrayList<>();

    @BeforeAll
    static void startMasters() {
        for (int i = 0; i < 3; i++) {
            masters.add(RedisServer.start());
        }
    }

    @AfterAll
    static void stopMasters() {
        masters.forEach(RedisServer::close);
    }

    @AfterEach
    void closeClients() {
        this.clients.forEach(RedlockClient::close);
        this.factories.forEach(TestConnections::destroy);
        for (RedisServer master : masters) {
            master.resume();
            master.flushAll();
        }
    }

    private RedlockClient client(String application) {
        if (this.factories.isEmpty()) {
            for (RedisServer master : masters) {
                this.factories.add(TestConnections.lettuce(master, Duration.ofSeconds(2)));
            }
        }
        RedlockClient client = new RedlockClient(this.factories, "rl:", Duration.ofSeconds(30), LockLossListener.NONE);
        this.clients.add(client);
        if (application != null) {
            // A long TTL: refreshed every 200 s, never in the middle of a test that forges entries.
            client.publishInstance(new InstanceInfo(application, application + "-1", "host", 7), Duration.ofMinutes(10));
        }
        return client;
    }

    private static void awaitEntries(int count) {
        await().atMost(Duration.ofSeconds(5))
            .until(() -> masters.stream().allMatch((master) -> ((List<?>) master.command("KEYS", "rl:~lock~instance:*"))
                .size() == count));
    }

    @Test
    void aKeyHeldOnAMajorityNamesItsHolderEvenWithOneNodeDown() {
        RedlockClient orders = client("orders");
        RedlockClient reports = client("reports");
        awaitEntries(2);
        try (LockHandle held = orders.acquire(LockRequest.of("job:report", Duration.ZERO, null))) {
            masters.get(2).pause();
            LockInspection view = reports.inspect("job:report");
            assertThat(view.state()).isEqualTo(State.HELD);
            assertThat(view.holder()).isEqualTo(new Holder(true, "orders", "orders-1", "host", 7L));
            assertThat(view.fencingToken()).isEqualTo(held.fencingToken());
            assertThat(view.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
            assertThat(view.waiting()).isNull();
        }
        finally {
            masters.get(2).resume();
        }
    }

    @Test
    void aValueOnOneNodeOnlyIsNotTheAnswer() {
        RedlockClient reports = client("reports");
        masters.get(0).command("SET", "rl:job:report", "someone:5");
        assertThat(reports.inspect("job:report").state()).isEqualTo(State.FREE);
        masters.get(1).command("SET", "rl:job:report", "someone-else:6");
        // Three different answers: no majority for anything.
        assertThat(reports.inspect("job:report").state()).isEqualTo(State.OTHER);
        assertThat(reports.inspect("job:report").holder()).isNull();
    }

    @Test
    void aRegistryEntryIsBelievedOnlyOnAMajority() {
        RedlockClient orders = client("orders");
        RedlockClient reports = client("reports");
        awaitEntries(2);
        try (LockHandle held = orders.acquire(LockRequest.of("job:report", Duration.ZERO, null))) {
            for (Object key : (List<?>) masters.get(0).command("KEYS", "rl:~lock~instance:*")) {
                masters.get(0).command("SET", (String) key, "redis-lock-instance/1\nforged\nx\nh\n1");
            }
            assertThat(reports.inspect("job:report").holder().application()).isEqualTo("orders");
            for (Object key : (List<?>) masters.get(1).command("KEYS", "rl:~lock~instance:*")) {
                masters.get(1).command("DEL", (String) key);
            }
            assertThat(reports.inspect("job:report").holder()).isEqualTo(Holder.UNKNOWN);
        }
    }

    @Test
    void closingAClientDeletesItsEntriesOnEveryNode() {
        RedlockClient orders = client("orders");
        awaitEntries(1);
        orders.close();
        for (RedisServer master : masters) {
            assertThat((List<?>) master.command("KEYS", "rl:~lock~instance:*")).isEmpty();
        }
    }
}
