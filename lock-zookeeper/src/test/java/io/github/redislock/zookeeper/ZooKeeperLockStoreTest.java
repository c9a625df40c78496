package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.ZooKeeperServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What only the ZooKeeper store does, under the engine, on a real ZooKeeper server: zxid fences across sessions
 * and parent nodes, notified waiting, suspended connections, nodes deleted behind a holder's back, a fixed
 * lease's timer, an unreachable ensemble, key encoding. Two "applications" are two Curator clients (two
 * sessions), each with its own store and engine. What every store promises is proven by
 * {@link ZooKeeperStoreContractTest}.
 */
class ZooKeeperLockStoreTest {

    private static ZooKeeperServer server;

    private final List<AutoCloseable> closeables = new ArrayList<>();

    private final List<String> losses = new CopyOnWriteArrayList<>();

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

    /** One application: a client (its own session), a store and an engine over it. */
    private Application application() {
        return application(4_000);
    }

    private Application application(int sessionTimeoutMillis) {
        CuratorFramework client = server.client(sessionTimeoutMillis);
        ZooKeeperLockStore store = new ZooKeeperLockStore(client, "/locks", Duration.ofSeconds(2));
        LockEngine engine = new LockEngine(store, Duration.ofSeconds(30),
                (key, token, fence, detection) -> this.losses.add(key + " " + fence + " " + detection));
        this.closeables.add(client);
        this.closeables.add(engine);
        return new Application(client, store, engine);
    }

    private record Application(CuratorFramework client, ZooKeeperLockStore store, LockEngine engine) {
    }

    private List<String> nodes(String name) throws Exception {
        String parent = "/locks/" + ZnodeNames.encode(name);
        return (this.inspector.checkExists().forPath(parent) != null) ? this.inspector.getChildren().forPath(parent)
                : List.of();
    }

    @Test
    void fencingTokensIncreaseAcrossSessionsAndADeletedParent() throws Exception {
        Application first = application();
        Application second = application();
        long a;
        try (LockHandle lock = first.engine().acquire(LockRequest.of("fenced", Duration.ZERO, null))) {
            a = lock.fencingToken();
        }
        long b;
        try (LockHandle lock = second.engine().acquire(LockRequest.of("fenced", Duration.ZERO, null))) {
            b = lock.fencingToken();
        }
        // The parent goes (as the server reaps an empty container); the sequence numbers start again under the
        // new one, the zxids do not.
        this.inspector.delete().forPath("/locks/fenced");
        long c;
        try (LockHandle lock = first.engine().acquire(LockRequest.of("fenced", Duration.ZERO, null))) {
            c = lock.fencingToken();
            assertThat(nodes("fenced")).singleElement().asString().endsWith("lock-0000000000");
        }
        assertThat(a).isPositive().isLessThan(b);
        assertThat(b).isLessThan(c);
    }

    @Test
    void aWaiterIsWokenByTheReleaseAndSendsNothingWhileItWaits() throws Exception {
        Application holder = application();
        Application waiter = application();
        AtomicInteger calls = CountingTracer.count(waiter.client());
        LockHandle held = holder.engine().acquire(LockRequest.of("notified", Duration.ZERO, null));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> taken = pool.submit(() -> {
            try (LockHandle lock = waiter.engine().acquire(LockRequest.of("notified", Duration.ofSeconds(30), null))) {
                return lock.fencingToken();
            }
        });
        // Create, read the line, watch the predecessor: then nothing until the predecessor goes, however long.
        CountingTracer.awaitParked(calls, 3);
        assertThat(waiter.store().waiting()).containsEntry("/locks/notified", 1);
        held.close();
        assertThat(taken.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        pool.shutdown();
    }

    @Test
    void anInterruptedHolderStillReleases() throws Exception {
        Application holder = application();
        LockHandle lock = holder.engine().acquire(LockRequest.of("interrupted holder", Duration.ZERO, null));
        Thread.currentThread().interrupt();
        try {
            lock.close();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        }
        finally {
            Thread.interrupted();
        }
        assertThat(nodes("interrupted holder")).isEmpty();
    }

    @Test
    void aSuspendedConnectionIsNotTrustedUntilItReconnectsToTheSameSession() throws Exception {
        // The longest session the server allows, so that the restart is over well before it could expire.
        Application holder = application(10_000);
        LockHandle lock = holder.engine().acquire(LockRequest.of("suspended", Duration.ZERO, null));
        assertThat(lock.isHeld()).isTrue();
        server.stop();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> !lock.isHeld());
            assertThat(lock.isLost()).isFalse();
        }
        finally {
            server.restart();
        }
        await().atMost(Duration.ofSeconds(10)).until(lock::isHeld);
        assertThat(lock.isLost()).isFalse();
        assertThat(lock.verifyHeld()).isTrue();
        lock.close();
        assertThat(this.losses).isEmpty();
        assertThat(nodes("suspended")).isEmpty();
    }

    @Test
    void aCheckFindsANodeDeletedBehindTheHoldersBack() throws Exception {
        Application holder = application();
        LockHandle lock = holder.engine().acquire(LockRequest.of("checked", Duration.ZERO, null));
        assertThat(lock.verifyHeld()).isTrue();
        // Someone with access to the ensemble removes the node (as the pre-commit check would then find).
        this.inspector.delete().forPath("/locks/checked/" + nodes("checked").get(0));
        assertThat(lock.verifyHeld()).isFalse();
        assertThat(lock.isLost()).isTrue();
        assertThat(lock.isHeld()).isFalse();
        lock.close();
        assertThat(this.losses).containsExactly("/locks/checked " + lock.fencingToken() + " "
                + LockLossDetection.COMMIT_CHECK);
    }

    /**
     * A waiter that waited in line longer than its fixed lease gets the whole lease once it has the lock, as on
     * Redis (where a waiter's lease starts with the attempt that took the key). Found by the torture suite's
     * zookeeper-healthy run: the lease was counted from the waiter's first request, so the store's timer deleted
     * the node the moment the lock was got, and the next waiter came in while the section ran.
     */
    @Test
    void aFixedLeaseCountsFromWhenTheLockWasGotNotFromWhenTheWaitBegan() throws Exception {
        Application holder = application();
        Application waiter = application();
        LockHandle first = holder.engine().acquire(LockRequest.of("late", Duration.ZERO, null));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Boolean> heldAfterASecond = pool.submit(() -> {
                try (LockHandle lock = waiter.engine()
                    .acquire(LockRequest.of("late", Duration.ofSeconds(30), Duration.ofSeconds(3)))) {
                    // A third of the lease after getting the lock: time passing is the point.
                    Thread.sleep(1_000);
                    return lock.isHeld();
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> waiter.store().waiting().containsKey("/locks/late"));
            // The waiter waits in line longer than its lease: time passing is the point.
            Thread.sleep(3_500);
            first.close();
            assertThat(heldAfterASecond.get(20, TimeUnit.SECONDS)).isTrue();
            assertThat(this.losses).isEmpty();
        }
        finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anUnreachableEnsembleFailsTheCallWithinTheConnectionTimeout() throws Exception {
        Application application = application();
        server.stop();
        try {
            // Unreachable: the client knows it has no connection (a call already on its way when the server went is
            // bounded by Curator's retry policy instead).
            await().atMost(Duration.ofSeconds(10)).until(() -> !application.client().getZookeeperClient().isConnected());
            long start = System.nanoTime();
            assertThatThrownBy(() -> application.engine().acquire(LockRequest.of("unreachable", Duration.ZERO, null)))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("no connection to ZooKeeper");
            // The connection timeout (2 s) waited out, and not much more: a liveness bound, not a speed claim.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(1_900),
                    Duration.ofSeconds(10));
            assertThat(application.store().waiting()).isEmpty();
        }
        finally {
            server.restart();
        }
    }

    @Test
    void keysAreTheEncodedNamesUnderTheBasePath() {
        Application application = application();
        assertThat(application.store().key("sku/1 ü")).isEqualTo("/locks/sku%2F1%20%C3%BC");
        assertThat(application.store().describe()).isEqualTo("ZooKeeper " + server.connectString() + " /locks");
    }
}
