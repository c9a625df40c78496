package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.Sharing;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.support.ArrivalOrder;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TaskThreads;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Read locks and semaphores on three independent masters, as only Redlock keeps them: a permit counts in one slot on
 * a majority, a waiting writer holds a place in each node's queue so that later readers wait behind it, and the
 * holder view names the readers a majority has.
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RedlockSharesTest {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private static final Duration WAIT = Duration.ofSeconds(30);

    private List<RedisConnectionFactory> factories = List.of();

    private final List<LockEngine> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        this.clients.forEach(LockEngine::close);
    }

    private LockEngine application(String name) {
        if (this.factories.isEmpty()) {
            this.factories = masters.connect(Duration.ofSeconds(2));
        }
        LockEngine client = new LockEngine(new RedlockStore(this.factories, ""), Duration.ofSeconds(30),
                LockLossListener.NONE);
        this.clients.add(client);
        client.publishInstance(new InstanceInfo(name, name + "-1", "host", 7));
        return client;
    }

    private static LockRequest read(String key) {
        return LockRequest.of(key, WAIT, null).mode(LockMode.READ);
    }

    /**
     * One master has slot 0 of a semaphore of 2 taken by another holder; the two others are free. A permit then gets
     * slot 1 there and slot 0 on the others: it counts in slot 0, held by a majority, and its entry in slot 1 goes
     * at once, leaving that master's second permit to whoever comes next.
     */
    @Test
    void aPermitCountsInTheSlotAMajorityGaveItAndGivesUpItsOthers() {
        RedisServer first = masters.get(0);
        String forged = "AAAAAAAAAAAAAAAAAAAAAA.1:5";
        first.command("SET", "pool", "~s2:5", "PX", "60000");
        first.command("ZADD", KeySlots.holdersKey("pool"), Long.toString(System.currentTimeMillis() + 60_000),
                "0/" + forged);
        first.command("PEXPIRE", KeySlots.holdersKey("pool"), "60000");
        LockEngine application = application("orders");
        try (LockHandle permit = application.acquire(LockRequest.of("pool", WAIT, null).permits(2))) {
            String attempt = permit.token().substring(0, permit.token().lastIndexOf(':') + 1);
            await().atMost(Duration.ofSeconds(5)).until(
                    () -> first.command("ZRANGE", KeySlots.holdersKey("pool"), "0", "-1").equals(List.of("0/" + forged)));
            for (RedisServer master : List.of(masters.get(1), masters.get(2))) {
                assertThat((List<?>) master.command("ZRANGE", KeySlots.holdersKey("pool"), "0", "-1")).singleElement()
                    .asString().startsWith("0/" + attempt);
            }
            assertThat(permit.verifyHeld()).isTrue();
        }
    }

    /** Three applications with three threads each on a semaphore of 2: never more than 2 inside, judged here. */
    @Test
    void aSemaphoreAdmitsAtMostItsPermitsAcrossApplications() throws Exception {
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            LockEngine application = application(name);
            for (int t = 0; t < 3; t++) {
                workers.add(CompletableFuture.runAsync(() -> {
                    for (int i = 0; i < 8; i++) {
                        try (LockHandle permit = application.acquire(LockRequest.of("limited", WAIT, null).permits(2))) {
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            // Work under the permit, long enough for the others to try their luck meanwhile.
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
                            inside.decrementAndGet();
                        }
                    }
                }, TaskThreads.own()));
            }
        }
        CompletableFuture.allOf(workers.toArray(new CompletableFuture<?>[0])).get(100, TimeUnit.SECONDS);
        assertThat(mostInside.get()).isBetween(1, 2);
    }

    /**
     * A reader holds (on every master, not only the majority its acquire waited for); a writer of another application
     * waits (its place queued on the nodes); a reader of a third that comes after it waits too (by retries), and gets
     * in only after the writer (see {@link ArrivalOrder}).
     */
    @Test
    void aReaderArrivingWhileAWriterWaitsGetsInOnlyAfterTheWriter() throws Exception {
        LockEngine late = application("late");
        ArrivalOrder.readerBehindAWaitingWriter("doc", application("first"), application("writer"), late,
                () -> await().atMost(Duration.ofSeconds(10)).until(() -> masters.all().stream().allMatch(
                        (master) -> ((Number) master.command("ZCARD", KeySlots.holdersKey("doc"))).longValue() == 1)),
                () -> await().atMost(Duration.ofSeconds(10)).until(() -> masters.all().stream().allMatch(
                        (master) -> ((Number) master.command("LLEN", KeySlots.queueKey("doc"))).longValue() == 1)),
                () -> await().atMost(Duration.ofSeconds(10))
                    .until(() -> late.state().waiting().getOrDefault("doc", 0) == 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.all().stream()
            .allMatch((master) -> ((Number) master.command("EXISTS", "doc", KeySlots.queueKey("doc"),
                    KeySlots.queueEntriesKey("doc"), KeySlots.holdersKey("doc"))).longValue() == 0));
    }

    @Test
    void aWriteLockOnASemaphoresKeyIsRefusedNamingBothCounts() {
        LockEngine holder = application("holder");
        try (LockHandle permit = holder.acquire(LockRequest.of("counted", WAIT, null).permits(3))) {
            assertThatExceptionOfType(LockException.class)
                .isThrownBy(() -> application("other").acquire(LockRequest.of("counted", WAIT, null)))
                .withMessageContaining("a semaphore of 3 permits").withMessageContaining("a write lock (1 permit)");
            assertThat(permit.verifyHeld()).isTrue();
        }
    }

    @Test
    void theHolderViewNamesTheReadersAMajorityHas() {
        LockEngine orders = application("orders");
        LockEngine reports = application("reports");
        try (LockHandle first = orders.acquire(read("report")); LockHandle second = reports.acquire(read("report"))) {
            LockInspection view = orders.inspect("report");
            assertThat(view.sharing()).isEqualTo(Sharing.READ);
            assertThat(view.holders()).extracting((holding) -> holding.holder().application())
                .containsExactlyInAnyOrder("orders", "reports");
            assertThat(view.fencingToken()).isEqualTo(Math.max(first.fencingToken(), second.fencingToken()));
        }
    }
}
