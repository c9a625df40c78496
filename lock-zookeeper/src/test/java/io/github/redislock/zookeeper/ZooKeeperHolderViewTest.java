package io.github.redislock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockHandle;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.Holding;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.Sharing;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.ZooKeeperServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The holder view of the ZooKeeper store ({@link ZooKeeperLockStore#inspect}) on a real ZooKeeper server: two
 * applications are two Curator clients (two sessions), each with its own store, engine and registry node.
 */
class ZooKeeperHolderViewTest {

    private static ZooKeeperServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private CuratorFramework inspector;

    @BeforeAll
    static void startServer() {
        server = new ZooKeeperServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void inspector() {
        this.inspector = server.client(10_000);
    }

    @AfterEach
    void close() throws Exception {
        Collections.reverse(this.closeables);
        for (AutoCloseable closeable : this.closeables) {
            closeable.close();
        }
        this.inspector.close();
    }

    /** One application: its own session, a store publishing it under the name, an engine. */
    private Application application(String name) {
        CuratorFramework client = server.client(4_000);
        ZooKeeperLockStore store = new ZooKeeperLockStore(client, "/locks", Duration.ofSeconds(2));
        LockEngine engine = new LockEngine(store, Duration.ofSeconds(30), (key, token, fence, detection) -> {
        });
        InstanceInfo self = InstanceInfo.current(name);
        store.publishInstance(self, engine.ownerId());
        this.closeables.add(client);
        this.closeables.add(engine);
        return new Application(client, store, engine, self);
    }

    private record Application(CuratorFramework client, ZooKeeperLockStore store, LockEngine engine,
            InstanceInfo self) {

        String registryNode() {
            return "/locks/" + InstanceNodes.NODE + "/" + this.engine.ownerId();
        }
    }

    private static LockRequest request(String key) {
        return LockRequest.of(key, Duration.ofSeconds(30), null);
    }

    @Test
    void anotherApplicationsViewNamesTheHolder() throws Exception {
        Application orders = application("orders");
        Application billing = application("billing");
        await().atMost(Duration.ofSeconds(10))
            .until(() -> this.inspector.checkExists().forPath(orders.registryNode()) != null);
        try (LockHandle lock = orders.engine().acquire(request("job:report"))) {
            LockInspection view = billing.engine().inspect("job:report");
            assertThat(view.state()).isEqualTo(State.HELD);
            assertThat(view.held()).isTrue();
            assertThat(view.holder()).isEqualTo(Holder.of(orders.self()));
            assertThat(view.holder().application()).isEqualTo("orders");
            assertThat(view.holder().pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(view.holder().host()).isNotBlank();
            assertThat(view.holder().instance()).isEqualTo(orders.self().id());
            assertThat(view.fencingToken()).isEqualTo(lock.fencingToken());
            assertThat(view.since()).isNotNull();
            assertThat(view.leaseRemaining()).isNull();
            assertThat(view.waiting()).isZero();
            assertThat(view.key()).isEqualTo("/locks/job:report");
        }
        assertThat(billing.engine().inspect("job:report").state()).isEqualTo(State.FREE);
    }

    @Test
    void aKeyNobodyHoldsIsFree() {
        Application billing = application("billing");
        LockInspection view = billing.engine().inspect("nobody/holds this");
        assertThat(view).isEqualTo(LockInspection.free("/locks/nobody%2Fholds%20this", 0));
        assertThat(view.held()).isFalse();
    }

    @Test
    void waitingCountsTheNodesQueuedBehindTheHolder() throws Exception {
        Application orders = application("orders");
        Application billing = application("billing");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Long>> waiters = new ArrayList<>();
            try (LockHandle lock = orders.engine().acquire(request("queue"))) {
                for (int i = 0; i < 2; i++) {
                    waiters.add(pool.submit(() -> {
                        try (LockHandle later = billing.engine().acquire(request("queue"))) {
                            return later.fencingToken();
                        }
                    }));
                }
                // Both of billing's threads are parked in the line: each has a node of its own.
                await().atMost(Duration.ofSeconds(10))
                    .until(() -> Integer.valueOf(2).equals(billing.store().waiting().get("/locks/queue")));
                LockInspection view = orders.engine().inspect("queue");
                assertThat(view.waiting()).isEqualTo(2);
                assertThat(view.holder()).isEqualTo(Holder.of(orders.self()));
                assertThat(view.fencingToken()).isEqualTo(lock.fencingToken());
            }
            for (Future<Long> waiter : waiters) {
                waiter.get(30, TimeUnit.SECONDS);
            }
            assertThat(orders.engine().inspect("queue").state()).isEqualTo(State.FREE);
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aReadLockedKeyNamesEveryReaderAndCountsTheWriterWaitingBehindThem() throws Exception {
        Application orders = application("orders");
        Application billing = application("billing");
        LockHandle first = orders.engine().acquire(request("doc").mode(LockMode.READ));
        LockHandle second = billing.engine().acquire(request("doc").mode(LockMode.READ));
        CompletableFuture<Void> writer = CompletableFuture
            .runAsync(() -> billing.engine().acquire(request("doc")).close(), TaskThreads.own());
        await().atMost(Duration.ofSeconds(10)).until(() -> billing.store().waiting().containsKey("/locks/doc"));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            LockInspection view = orders.engine().inspect("doc");
            assertThat(view.state()).isEqualTo(State.HELD);
            assertThat(view.sharing()).isEqualTo(Sharing.READ);
            assertThat(view.waiting()).isEqualTo(1);
            assertThat(view.holders()).containsExactly(
                    new Holding(Holder.of(orders.self()), first.fencingToken(), null),
                    new Holding(Holder.of(billing.self()), second.fencingToken(), null));
            // The newest holder at the top.
            assertThat(view.holder()).isEqualTo(Holder.of(billing.self()));
            assertThat(view.fencingToken()).isEqualTo(second.fencingToken());
        });
        first.close();
        second.close();
        writer.get(30, TimeUnit.SECONDS);
        assertThat(orders.engine().inspect("doc").state()).isEqualTo(State.FREE);
    }

    @Test
    void aSemaphoresViewHasItsPermitCountAndAHoldingPerPermit() throws Exception {
        Application orders = application("orders");
        Application billing = application("billing");
        LockRequest permit = request("pool").permits(3).nonReentrant();
        try (LockHandle one = orders.engine().acquire(permit); LockHandle two = orders.engine().acquire(permit);
                LockHandle three = billing.engine().acquire(permit)) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                LockInspection view = billing.engine().inspect("pool");
                assertThat(view.sharing()).isEqualTo(Sharing.permits(3));
                assertThat(view.waiting()).isZero();
                assertThat(view.holders()).containsExactly(
                        new Holding(Holder.of(orders.self()), one.fencingToken(), null),
                        new Holding(Holder.of(orders.self()), two.fencingToken(), null),
                        new Holding(Holder.of(billing.self()), three.fencingToken(), null));
            });
        }
    }

    @Test
    void aNodeWrittenByAnotherClientIsNeverAnError() throws Exception {
        Application billing = application("billing");
        byte[][] garbage = { { (byte) 0xC3, 0x28, 0, (byte) 0xFF }, new byte[200_000],
                "AAAAAAAAAAAAAAAAAAAAAA.1\nmore".getBytes(StandardCharsets.UTF_8), new byte[0] };
        for (byte[] data : garbage) {
            String node = this.inspector.create()
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath("/locks/planted/lock-", data);
            LockInspection view = billing.engine().inspect("planted");
            assertThat(view.state()).isEqualTo(State.OTHER);
            assertThat(view.held()).isTrue();
            assertThat(view.holder()).isNull();
            assertThat(view.fencingToken()).isEqualTo(this.inspector.checkExists().forPath(node).getCzxid());
            this.inspector.delete().forPath(node);
        }
    }

    @Test
    void aTokenOfAnUnregisteredEngineIsAnUnknownHolder() throws Exception {
        Application billing = application("billing");
        // Well-formed, but no instance registered this id (an instance without the registry, another version).
        this.inspector.create()
            .creatingParentContainersIfNeeded()
            .withProtection()
            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
            .forPath("/locks/stranger/lock-", "AAAAAAAAAAAAAAAAAAAAAA.1z".getBytes(StandardCharsets.UTF_8));
        // A registry node of that id with garbage in it names nobody either.
        this.inspector.create()
            .creatingParentContainersIfNeeded()
            .withMode(CreateMode.EPHEMERAL)
            .forPath("/locks/" + InstanceNodes.NODE + "/AAAAAAAAAAAAAAAAAAAAAA", new byte[] { (byte) 0xFE, 1, 2 });
        LockInspection view = billing.engine().inspect("stranger");
        assertThat(view.state()).isEqualTo(State.HELD);
        assertThat(view.holder()).isEqualTo(Holder.UNKNOWN);
    }

    @Test
    void theRegistryNodeGoesWithItsSessionAndComesBackWithANewOne() throws Exception {
        Application orders = application("orders");
        Application billing = application("billing");
        await().atMost(Duration.ofSeconds(10))
            .until(() -> this.inspector.checkExists().forPath(orders.registryNode()) != null);
        assertThat(InstanceInfo.parse(new String(this.inspector.getData().forPath(orders.registryNode()),
                StandardCharsets.UTF_8))).isEqualTo(orders.self());

        // A new session: the server deleted the node with the old one; the store writes it again.
        long before = this.inspector.checkExists().forPath(orders.registryNode()).getCzxid();
        server.expireSession(orders.client());
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            var stat = this.inspector.checkExists().forPath(orders.registryNode());
            return stat != null && stat.getCzxid() > before;
        });

        // The session closed (the process gone, nothing withdrawn): the node is gone, and so is the lock.
        orders.engine().acquire(request("closing"));
        assertThat(billing.engine().inspect("closing").holder()).isEqualTo(Holder.of(orders.self()));
        orders.client().close();
        assertThat(this.inspector.checkExists().forPath(orders.registryNode())).isNull();
        assertThat(billing.engine().inspect("closing").state()).isEqualTo(State.FREE);
    }

    @Test
    void closingTheStoreWithdrawsItsNode() throws Exception {
        Application orders = application("orders");
        await().atMost(Duration.ofSeconds(10))
            .until(() -> this.inspector.checkExists().forPath(orders.registryNode()) != null);
        orders.store().close();
        assertThat(this.inspector.checkExists().forPath(orders.registryNode())).isNull();
        assertThat(orders.client().getZookeeperClient().isConnected()).isTrue();
    }
}
