package io.github.redislock.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The holder view on one real Redis: any application's client names the instance that holds a key from the key's
 * value and the instance registry, with nothing written by the lock for it; what another client wrote names
 * nobody; a stopped instance leaves no entry.
 */
class HolderViewTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final Duration TTL = Duration.ofSeconds(30);

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<TestRedisClient> clients = new ArrayList<>();

    @AfterEach
    void close() {
        this.clients.forEach(TestRedisClient::close);
        this.factories.forEach(TestConnections::destroy);
    }

    /** A client of the application, started as a bean is, with its registry entry unless the name is null. */
    private TestRedisClient client(String application) {
        RedisConnectionFactory factory = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        this.factories.add(factory);
        TestRedisClient client = TestRedisClient.of(factory, "hv:", Duration.ofSeconds(30), LockLossListener.NONE,
                null);
        this.clients.add(client);
        client.store().setInstanceTtl(TTL);
        if (application != null) {
            client.publishInstance(new InstanceInfo(application, application + "-1", "host-" + application, 4242));
        }
        client.store().start();
        return client;
    }

    private static String entryKey(String id) {
        return KeySlots.instanceKey("hv:", id);
    }

    @Test
    void aKeyNobodyHoldsIsFree() {
        LockInspection view = client("reports").inspect("job:report");
        assertThat(view.state()).isEqualTo(State.FREE);
        assertThat(view.held()).isFalse();
        assertThat(view.key()).isEqualTo("hv:job:report");
        assertThat(view.holder()).isNull();
        assertThat(view.fencingToken()).isNull();
        assertThat(view.leaseRemaining()).isNull();
        assertThat(view.waiting()).isZero();
    }

    @Test
    void anotherApplicationNamesTheHoldingInstance() {
        TestRedisClient orders = client("orders");
        TestRedisClient reports = client("reports");
        awaitEntry(orders);
        Instant before = Instant.now().minusSeconds(1);
        try (LockHandle held = orders.acquire(LockRequest.of("job:report", Duration.ZERO, null))) {
            LockInspection view = reports.inspect("job:report");
            assertThat(view.state()).isEqualTo(State.HELD);
            assertThat(view.held()).isTrue();
            assertThat(view.holder()).isEqualTo(new Holder(true, "orders", "orders-1", "host-orders", 4242L));
            assertThat(view.fencingToken()).isEqualTo(held.fencingToken());
            assertThat(view.since()).isBetween(before, Instant.now().plusSeconds(1));
            assertThat(view.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(30));
            assertThat(view.waiting()).isZero();
        }
        assertThat(reports.inspect("job:report").state()).isEqualTo(State.FREE);
    }

    @Test
    void aHandedOffKeyNamesTheApplicationItWasHandedTo() {
        TestRedisClient orders = client("orders");
        TestRedisClient reports = client("reports");
        awaitEntry(orders);
        // What a release writes when it hands the key to the application with this client id.
        redis.command("SET", "hv:job:report", orders.clientId() + ":1764000000000000", "PX", "5000");
        LockInspection view = reports.inspect("job:report");
        assertThat(view.state()).isEqualTo(State.HANDED_OFF);
        assertThat(view.holder().application()).isEqualTo("orders");
        assertThat(view.fencingToken()).isEqualTo(1764000000000000L);
    }

    @Test
    void anOwnerNotInTheRegistryIsUnknownNeverAnError() {
        TestRedisClient unpublished = client(null);
        TestRedisClient reports = client("reports");
        try (LockHandle held = unpublished.acquire(LockRequest.of("job:report", Duration.ZERO, null))) {
            LockInspection view = reports.inspect("job:report");
            assertThat(view.state()).isEqualTo(State.HELD);
            assertThat(view.holder()).isEqualTo(Holder.UNKNOWN);
            assertThat(view.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void applicationsWaitingInTheQueueAreCounted() throws Exception {
        TestRedisClient orders = client("orders");
        TestRedisClient billing = client("billing");
        TestRedisClient reports = client("reports");
        LockHandle held = orders.acquire(LockRequest.of("job:report", Duration.ZERO, null));
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
            try (LockHandle next = billing.acquire(LockRequest.of("job:report", Duration.ofSeconds(20), null))) {
                return next.fencingToken();
            }
        }, TaskThreads.own());
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> reports.inspect("job:report").waiting() == 1);
        }
        finally {
            held.close();
        }
        assertThat(waiter.get(20, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    }

    @Test
    void aKeyKeptForHoldAtLeastIsHeldByNobody() {
        TestRedisClient orders = client("orders");
        TestRedisClient reports = client("reports");
        orders.acquire(LockRequest.of("job:report", Duration.ZERO, null).holdAtLeast(Duration.ofSeconds(20))).close();
        LockInspection view = reports.inspect("job:report");
        assertThat(view.state()).isEqualTo(State.KEPT);
        assertThat(view.held()).isTrue();
        assertThat(view.holder()).isNull();
        assertThat(view.leaseRemaining()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
    }

    @Test
    void whatAnotherClientWroteNamesNobody() {
        TestRedisClient reports = client("reports");
        String id = LockTokens.randomId();
        // An entry planted for an id in some other form than ours, and one with a line too many.
        redis.command("SET", entryKey(id), "redis-lock-instance/1\nevil\nx\nhost\n1\nmore");
        String other = LockTokens.randomId();
        redis.command("SET", entryKey(other), "redis-lock-instance/2\nnew\nx\nhost\n1");
        String[][] planted = { { "plain", State.OTHER.name() }, { "x:1", State.OTHER.name() },
                { id + ".1:1764000000000000", State.HELD.name() }, { other + ":5", State.HANDED_OFF.name() },
                { "x".repeat(1_000_000), State.OTHER.name() }, { "\u0000\u00ff\n", State.OTHER.name() } };
        for (String[] value : planted) {
            redis.command("SET", "hv:planted", value[0]);
            LockInspection view = reports.inspect("planted");
            assertThat(view.state().name()).as(value[0].substring(0, Math.min(40, value[0].length())))
                .isEqualTo(value[1]);
            assertThat(view.holder()).isIn(null, Holder.UNKNOWN);
        }
        redis.command("DEL", "hv:planted");
        redis.command("HSET", "hv:planted", "a", "b");
        assertThat(reports.inspect("planted").state()).isEqualTo(State.OTHER);
        redis.command("DEL", "hv:planted");
        redis.command("SET", KeySlots.queueKey("hv:planted"), "a string, not a list");
        assertThat(reports.inspect("planted").waiting()).isNull();
    }

    @Test
    void aNameTheLockRefusesIsRefusedBeforeAnythingIsRead() {
        TestRedisClient reports = client("reports");
        assertThatThrownBy(() -> reports.inspect("x~lock~instance:" + LockTokens.randomId()))
            .isInstanceOf(LockException.class)
            .hasMessageContaining("~lock~");
    }

    @Test
    void theRegistryEntryIsWrittenWithATtlRefreshedAndDeletedWhenTheInstanceStops() {
        TestRedisClient orders = client("orders");
        awaitEntry(orders);
        long pttl = (Long) redis.command("PTTL", entryKey(orders.ownerId()));
        assertThat(pttl).isPositive().isLessThanOrEqualTo(TTL.toMillis());
        assertThat(InstanceInfo.parse((String) redis.command("GET", entryKey(orders.clientId()))))
            .isEqualTo(new InstanceInfo("orders", "orders-1", "host-orders", 4242));
        orders.store().stop();
        assertThat(redis.command("EXISTS", entryKey(orders.ownerId()))).isEqualTo(0L);
        assertThat(redis.command("EXISTS", entryKey(orders.clientId()))).isEqualTo(0L);
    }

    private static void awaitEntry(TestRedisClient client) {
        await().atMost(Duration.ofSeconds(5))
            .until(() -> redis.command("EXISTS", entryKey(client.ownerId())).equals(1L));
    }
}
