package io.github.redislock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holding;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.Sharing;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.TestConnections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The holder view of a shared key on one Redis: its kind from the marker, every holder named across applications
 * from the holders set with its fencing token and lease, the queued waiters counted; entries another client wrote
 * into the holders set name nobody.
 */
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class SharedHolderViewTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final Duration WAIT = Duration.ofSeconds(20);

    @RegisterExtension
    final TestApplications applications = new TestApplications(
            () -> TestConnections.lettuce(redis.server(), Duration.ofSeconds(5)));

    /** An application started as a bean is, with its registry entry. */
    private TestRedisClient application(String name) {
        TestRedisClient client = this.applications.start();
        client.publishInstance(new InstanceInfo(name, name + "-1", "host-" + name, 4242));
        client.store().start();
        await().until(() -> redis.command("EXISTS", KeySlots.instanceKey("", client.ownerId())).equals(1L));
        return client;
    }

    private static LockRequest read(String key) {
        return LockRequest.of(key, WAIT, null).mode(LockMode.READ);
    }

    @Test
    void readersOfTwoApplicationsAreNamedEachWithItsFenceAndAQueuedWriterIsCounted() {
        TestRedisClient orders = application("orders");
        TestRedisClient reports = application("reports");
        TestRedisClient writer = application("writer");
        try (LockHandle first = orders.acquire(read("doc:1")); LockHandle second = reports.acquire(read("doc:1"))) {
            CompletableFuture<Void> writing = CompletableFuture.runAsync(
                    () -> writer.acquire(LockRequest.of("doc:1", WAIT, null)).close(), TaskThreads.own());
            await().until(() -> writer.inspect("doc:1").waiting() == 1);
            LockInspection view = writer.inspect("doc:1");
            assertThat(view.state()).isEqualTo(State.HELD);
            assertThat(view.sharing()).isEqualTo(Sharing.READ);
            assertThat(view.holders()).extracting((holding) -> holding.holder().application(),
                    Holding::fencingToken)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("orders", first.fencingToken()),
                        org.assertj.core.groups.Tuple.tuple("reports", second.fencingToken()));
            assertThat(view.holders()).allSatisfy((holding) -> assertThat(holding.leaseRemaining())
                .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(30)));
            assertThat(view.fencingToken()).isEqualTo(second.fencingToken());
            assertThat(view.holder().application()).isEqualTo("reports");
            assertThat(view.since()).isNotNull();
            first.close();
            second.close();
            writing.join();
        }
    }

    @Test
    void aSemaphoreShowsItsPermitCountAndEveryPermitsHolder() {
        TestRedisClient orders = application("orders");
        LockRequest permit = LockRequest.of("partner:api", WAIT, null).permits(4).nonReentrant();
        try (LockHandle one = orders.acquire(permit); LockHandle two = orders.acquire(permit)) {
            LockInspection view = application("reports").inspect("partner:api");
            assertThat(view.sharing()).isEqualTo(Sharing.permits(4));
            assertThat(view.holders()).hasSize(2).allSatisfy(
                    (holding) -> assertThat(holding.holder().application()).isEqualTo("orders"));
            assertThat(view.waiting()).isZero();
        }
        assertThat(orders.inspect("partner:api").state()).isEqualTo(State.FREE);
    }

    @Test
    void aReaderKeptByHoldAtLeastLeavesTheKeyKeptByNobody() {
        TestRedisClient orders = application("orders");
        orders.acquire(read("report").holdAtLeast(Duration.ofSeconds(20))).close();
        LockInspection view = orders.inspect("report");
        assertThat(view.state()).isEqualTo(State.KEPT);
        assertThat(view.sharing()).isEqualTo(Sharing.READ);
        assertThat(view.holders()).isEmpty();
    }

    @Test
    void entriesAnotherClientWroteIntoTheHoldersNameNobody() {
        TestRedisClient orders = application("orders");
        try (LockHandle reader = orders.acquire(read("doc:2"))) {
            redis.command("ZADD", KeySlots.holdersKey("doc:2"), "99999999999999", "forged:1",
                    "99999999999999", "AAAAAAAAAAAAAAAAAAAAAA.1:7");
            LockInspection view = orders.inspect("doc:2");
            assertThat(view.holders()).hasSize(3);
            assertThat(view.holders()).filteredOn((holding) -> holding.holder().known()).singleElement()
                .satisfies((holding) -> assertThat(holding.fencingToken()).isEqualTo(reader.fencingToken()));
        }
    }
}
