package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
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
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.ZooKeeperServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The ZooKeeper store under the engine, on a real ZooKeeper server: two "applications" are two Curator clients
 * (two sessions), each with its own store and engine.
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

    /** What the lock nodes under the key keep: their holders' or waiters' tokens. */
    private List<String> tokens(String name) throws Exception {
        List<String> tokens = new ArrayList<>();
        for (String node : nodes(name)) {
            tokens.add(new String(this.inspector.getData().forPath("/locks/" + ZnodeNames.encode(name) + "/" + node),
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        return tokens;
    }

    @Test
    void applicationsAndThreadsNeverOverlapAndHoldersFencesIncrease() throws Exception {
        Application[] applications = { application(), application() };
        int threads = 4;
        int rounds = 25;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        // The witness: what entered, in the order it entered, judged by the test, not the library.
        List<Long> entries = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(applications.length * threads);
        CyclicBarrier start = new CyclicBarrier(applications.length * threads);
        List<Future<?>> done = new ArrayList<>();
        for (Application application : applications) {
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        try (LockHandle lock = application.engine()
                            .acquire(LockRequest.of("hot key/1", Duration.ofSeconds(30), null))) {
                            if (inside.incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            entries.add(lock.fencingToken());
                            Thread.onSpinWait();
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
        }
        for (Future<?> future : done) {
            future.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(overlaps).hasValue(0);
        assertThat(entries).hasSize(applications.length * threads * rounds);
        for (int i = 1; i < entries.size(); i++) {
            assertThat(entries.get(i)).as("fence of entry %d", i).isGreaterThan(entries.get(i - 1));
        }
        assertThat(nodes("hot key/1")).isEmpty();
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
        AtomicInteger calls = new AtomicInteger();
        waiter.client().getZookeeperClient().setTracerDriver(new CountingTracer(calls));
        LockHandle held = holder.engine().acquire(LockRequest.of("notified", Duration.ZERO, null));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> taken = pool.submit(() -> {
            try (LockHandle lock = waiter.engine().acquire(LockRequest.of("notified", Duration.ofSeconds(30), null))) {
                return lock.fencingToken();
            }
        });
        // Create, read the line, watch the predecessor: then nothing until the predecessor goes, however long.
        await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 3);
        assertThat(waiter.store().waiting()).containsEntry("/locks/notified", 1);
        int parked = calls.get();
        assertThat(parked).isEqualTo(3);
        Thread.sleep(1_000); // not synchronisation: the span in which a polling waiter would have sent something
        assertThat(calls).hasValue(parked);
        held.close();
        assertThat(taken.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        pool.shutdown();
    }

    @Test
    void aWaiterThatTimesOutLeavesNoNode() throws Exception {
        Application holder = application();
        Application other = application();
        try (LockHandle held = holder.engine().acquire(LockRequest.of("timeout", Duration.ZERO, null))) {
            assertThatThrownBy(() -> other.engine().acquire(LockRequest.of("timeout", Duration.ofMillis(300), null)))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(tokens("timeout")).containsExactly(held.token());
        }
        assertThat(nodes("timeout")).isEmpty();
    }

    @Test
    void anInterruptedWaiterLeavesNoNode() throws Exception {
        Application holder = application();
        Application other = application();
        try (LockHandle held = holder.engine().acquire(LockRequest.of("interrupt", Duration.ZERO, null))) {
            CountDownLatch failed = new CountDownLatch(1);
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            Thread waiter = new Thread(() -> {
                try {
                    other.engine().acquire(LockRequest.of("interrupt", Duration.ofSeconds(30), null)).close();
                }
                catch (Throwable ex) {
                    failures.add(ex);
                    failures.add(new IllegalStateException("interrupted: " + Thread.currentThread().isInterrupted()));
                }
                finally {
                    failed.countDown();
                }
            });
            waiter.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> !other.store().waiting().isEmpty());
            assertThat(nodes("interrupt")).hasSize(2);
            waiter.interrupt();
            assertThat(failed.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(failures.get(0)).isInstanceOf(LockException.class).hasMessageContaining("Interrupted");
            assertThat(failures.get(1)).hasMessage("interrupted: true");
            assertThat(tokens("interrupt")).containsExactly(held.token());
        }
        assertThat(nodes("interrupt")).isEmpty();
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
    void multipleKeysAreAllOrNothing() throws Exception {
        Application first = application();
        Application second = application();
        try (LockHandle b = second.engine().acquire(LockRequest.of("multi:b", Duration.ZERO, null))) {
            assertThatThrownBy(() -> first.engine()
                .acquire(LockRequest.of(List.of("multi:a", "multi:b"), Duration.ofMillis(200), null)))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(nodes("multi:a")).isEmpty();
        }
        try (LockHandle both = first.engine()
            .acquire(LockRequest.of(List.of("multi:b", "multi:a"), Duration.ZERO, null))) {
            assertThat(both.isHeld()).isTrue();
            assertThat(nodes("multi:a")).hasSize(1);
            assertThat(nodes("multi:b")).hasSize(1);
        }
        assertThat(nodes("multi:a")).isEmpty();
        assertThat(nodes("multi:b")).isEmpty();
    }

    @Test
    void theHoldingThreadEntersAgainAndOthersWait() throws Exception {
        Application application = application();
        try (LockHandle outer = application.engine().acquire(LockRequest.of("reentrant", Duration.ZERO, null))) {
            try (LockHandle inner = application.engine().acquire(LockRequest.of("reentrant", Duration.ZERO, null))) {
                assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
                assertThat(nodes("reentrant")).hasSize(1);
            }
            assertThat(outer.isHeld()).isTrue();
            assertThat(nodes("reentrant")).hasSize(1);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            Future<?> other = pool.submit(
                    () -> application.engine().acquire(LockRequest.of("reentrant", Duration.ofMillis(200), null)));
            assertThatThrownBy(() -> other.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(LockNotAcquiredException.class);
            // A non-reentrant request of the holding thread (async or reactive work) waits like anyone else.
            assertThatThrownBy(() -> application.engine()
                .acquire(LockRequest.of("reentrant", Duration.ofMillis(200), null).nonReentrant()))
                .isInstanceOf(LockNotAcquiredException.class);
            pool.shutdown();
        }
        assertThat(nodes("reentrant")).isEmpty();
    }

    @Test
    void anExpiredSessionLosesTheLockAndSaysSo() throws Exception {
        Application holder = application();
        Application other = application();
        LockHandle lock = holder.engine().acquire(LockRequest.of("expiring", Duration.ZERO, null));
        server.expireSession(holder.client());
        await().atMost(Duration.ofSeconds(10)).until(lock::isLost);
        assertThat(lock.isHeld()).isFalse();
        assertThat(this.losses).containsExactly("/locks/expiring " + lock.fencingToken() + " " + LockLossDetection.SESSION);
        try (LockHandle next = other.engine().acquire(LockRequest.of("expiring", Duration.ofSeconds(10), null))) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
        lock.close();
        assertThat(this.losses).hasSize(1);
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

    @Test
    void aFixedLeaseEndsTheLockAndTheReleaseReportsIt() throws Exception {
        Application holder = application();
        Application other = application();
        LockHandle lock = holder.engine().acquire(LockRequest.of("fixed", Duration.ZERO, Duration.ofMillis(300)));
        try (LockHandle next = other.engine().acquire(LockRequest.of("fixed", Duration.ofSeconds(10), null))) {
            assertThat(lock.isHeld()).isFalse();
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
        lock.close();
        assertThat(this.losses).containsExactly("/locks/fixed " + lock.fencingToken() + " " + LockLossDetection.RELEASE);
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
    void holdAtLeastKeepsTheNodeAfterTheRelease() throws Exception {
        Application holder = application();
        Application other = application();
        long released;
        try (LockHandle lock = holder.engine()
            .acquire(LockRequest.of("kept", Duration.ZERO, null).holdAtLeast(Duration.ofMillis(800)))) {
            released = System.nanoTime();
        }
        try (LockHandle next = other.engine().acquire(LockRequest.of("kept", Duration.ofSeconds(10), null))) {
            assertThat(System.nanoTime() - released).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(700));
        }
        assertThat(this.losses).isEmpty();
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
