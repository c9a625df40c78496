package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The holder view on three independent masters: the majority's answer, whatever one node says, and the holder
 * named through the registry entries on a majority of them.
 */
class RedlockHolderViewTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private List<RedisConnectionFactory> factories = List.of();

    private final List<LockEngine> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        // Before the extension destroys the factories.
        this.clients.forEach(LockEngine::close);
    }

    private LockEngine client(String application) {
        if (this.factories.isEmpty()) {
            this.factories = masters.connect(Duration.ofSeconds(2));
        }
        RedlockStore store = new RedlockStore(this.factories, "rl:");
        // A long TTL: refreshed every 200 s, never in the middle of a test that forges entries.
        store.setInstanceTtl(Duration.ofMinutes(10));
        LockEngine client = new LockEngine(store, Duration.ofSeconds(30), LockLossListener.NONE);
        this.clients.add(client);
        if (application != null) {
            client.publishInstance(new InstanceInfo(application, application + "-1", "host", 7));
        }
        return client;
    }

    private static void forEachEntry(RedisServer master, java.util.function.Consumer<String> action) {
        for (Object key : (List<?>) master.command("KEYS", "rl:~lock~instance:*")) {
            action.accept((String) key);
        }
    }

    /** Waits until every master has {@code count} registry entries. */
    private static void awaitEntries(int count) {
        await().atMost(Duration.ofSeconds(5))
            .until(() -> masters.all().stream()
                .allMatch((master) -> ((List<?>) master.command("KEYS", "rl:~lock~instance:*")).size() == count));
    }

    @Test
    void aKeyHeldOnAMajorityNamesItsHolderEvenWithOneNodeDown() {
        LockEngine orders = client("orders");
        LockEngine reports = client("reports");
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
        LockEngine reports = client("reports");
        masters.get(0).command("SET", "rl:job:report", "someone:5");
        assertThat(reports.inspect("job:report").state()).isEqualTo(State.FREE);
        masters.get(1).command("SET", "rl:job:report", "someone-else:6");
        // Three different answers: no majority for anything.
        assertThat(reports.inspect("job:report").state()).isEqualTo(State.OTHER);
        assertThat(reports.inspect("job:report").holder()).isNull();
    }

    @Test
    void aRegistryEntryIsBelievedOnlyOnAMajority() {
        LockEngine orders = client("orders");
        LockEngine reports = client("reports");
        awaitEntries(2);
        try (LockHandle held = orders.acquire(LockRequest.of("job:report", Duration.ZERO, null))) {
            forEachEntry(masters.get(0), (key) -> masters.get(0).command("SET", key,
                    "redis-lock-instance/1\nforged\nx\nh\n1"));
            assertThat(reports.inspect("job:report").holder().application()).isEqualTo("orders");
            forEachEntry(masters.get(1), (key) -> masters.get(1).command("DEL", key));
            assertThat(reports.inspect("job:report").holder()).isEqualTo(Holder.UNKNOWN);
        }
    }

    @Test
    void closingAClientDeletesItsEntriesOnEveryNode() {
        LockEngine orders = client("orders");
        awaitEntries(1);
        orders.close();
        for (RedisServer master : masters.all()) {
            assertThat((List<?>) master.command("KEYS", "rl:~lock~instance:*")).isEmpty();
        }
    }
}
