package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.ZooKeeperServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Read locks and semaphores as only the ZooKeeper store keeps them, on a real ZooKeeper server: nodes named for
 * their kind in one line per key, admitted in sequence order, each waiter watching only the nodes whose departure
 * may admit it, every node ephemeral. Two "applications" are two Curator clients (two sessions), each with its own
 * store and engine. What every store promises is proven by {@link ZooKeeperStoreContractTest}.
 */
class ZooKeeperSharedLocksTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    /** The test's own client, which reads the lines. */
    private CuratorFramework reader;

    /** Every application's engine and client, closed in that order after each test. */
    private final List<LockEngine> engines = new ArrayList<>();

    private final List<CuratorFramework> clients = new ArrayList<>();

    @BeforeEach
    void startReader() {
        this.reader = zookeeper.server().client(10_000);
    }

    @AfterEach
    void closeApplications() {
        this.engines.forEach(LockEngine::close);
        this.clients.forEach(CuratorFramework::close);
        this.reader.close();
    }

    /** One application: a client (its own session, of the longest the server allows), a store, an engine. */
    private Application application() {
        CuratorFramework client = zookeeper.server().client(10_000);
        ZooKeeperLockStore store = new ZooKeeperLockStore(client, "/locks", Duration.ofSeconds(2));
        List<String> losses = new CopyOnWriteArrayList<>();
        LockEngine engine = new LockEngine(store, Duration.ofSeconds(30),
                (key, token, fence, detection) -> losses.add(key + " " + fence + " " + detection));
        this.clients.add(client);
        this.engines.add(engine);
        return new Application(client, store, engine, losses);
    }

    private record Application(CuratorFramework client, ZooKeeperLockStore store, LockEngine engine,
            List<String> losses) {

        LockHandle acquire(LockRequest request) {
            return this.engine.acquire(request);
        }

        /** A lock acquired on another thread, as a separate caller of this application. */
        CompletableFuture<LockHandle> acquireAsync(LockRequest request) {
            return CompletableFuture.supplyAsync(() -> this.engine.acquire(request), TaskThreads.own());
        }
    }

    private static LockRequest write(String name) {
        return LockRequest.of(name, WAIT, null).nonReentrant();
    }

    private static LockRequest read(String name) {
        return LockRequest.of(name, WAIT, null).mode(LockMode.READ).nonReentrant();
    }

    private static LockRequest permit(String name, int permits) {
        return LockRequest.of(name, WAIT, null).permits(permits).nonReentrant();
    }

    /** The key's lock nodes now, as the test's own client reads them, oldest first. */
    private List<String> nodes(String name) throws Exception {
        String parent = "/locks/" + ZnodeNames.encode(name);
        if (this.reader.checkExists().forPath(parent) == null) {
            return List.of();
        }
        List<String> nodes = new ArrayList<>(this.reader.getChildren().forPath(parent));
        nodes.sort((a, b) -> a.substring(a.length() - 10).compareTo(b.substring(b.length() - 10)));
        return nodes;
    }

    /**
     * A reader holds; a writer of another application queues; then a stream of five readers of two more
     * applications arrives, each while the key is read-held. Every one of them queues behind the writer (its node
     * after the writer's), none gets in beside the first reader, and once that one leaves, the writer is in alone
     * before any of them, as an independent record of the sections shows.
     */
    @Test
    void aStreamOfReadersArrivingBehindAWaitingWriterGetsInOnlyAfterIt() throws Exception {
        Application first = application();
        Application writing = application();
        List<Application> late = List.of(application(), application());
        Sections sections = new Sections();
        LockHandle reader = first.acquire(read("doc"));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (LockHandle lock = writing.acquire(write("doc"))) {
                sections.run("writer", true);
            }
        }, TaskThreads.own());
        await().atMost(WAIT).until(() -> nodes("doc").size() == 2);
        List<CompletableFuture<Void>> readers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Application application = late.get(i % 2);
            String name = "reader " + i;
            readers.add(CompletableFuture.runAsync(() -> {
                try (LockHandle lock = application.acquire(read("doc"))) {
                    sections.run(name, false);
                }
            }, TaskThreads.own()));
            int queued = i + 3;
            await().atMost(WAIT).until(() -> nodes("doc").size() == queued);
        }
        await().atMost(WAIT).until(() -> parked(late) == 5);
        assertThat(nodes("doc")).first().asString().contains("-read-");
        assertThat(nodes("doc").get(1)).contains("-lock-");
        assertThat(sections.entered()).as("nobody got in beside the first reader").isEmpty();
        reader.close();
        writer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        for (CompletableFuture<Void> each : readers) {
            each.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(sections.entered()).hasSize(6).first().isEqualTo("writer");
        assertThat(sections.breaches()).isEmpty();
        await().atMost(WAIT).until(() -> nodes("doc").isEmpty());
    }

    private static int parked(List<Application> applications) {
        return applications.stream()
            .mapToInt((application) -> application.store().waiting().getOrDefault("/locks/doc", 0))
            .sum();
    }

    /**
     * An application holds both permits of a semaphore and a read lock; another waits for a permit and for the
     * write lock. The first one's session expires (as when its process is gone): its permits and its read lock go
     * with the session's nodes, the waiters are let in by the notification of their departure, and the first
     * application is told each loss (detection SESSION). Curator's semaphore did not free its permits on LOST
     * (CURATOR-595): here a permit is an ephemeral node, so nothing of it can outlive the session.
     */
    @Test
    void anEndedSessionFreesItsPermitsAndReadLocksForTheWaiters() throws Exception {
        Application ending = application();
        Application waiting = application();
        LockHandle one = ending.acquire(permit("pool", 2));
        LockHandle two = ending.acquire(permit("pool", 2));
        LockHandle reading = ending.acquire(read("doc"));
        CompletableFuture<LockHandle> permit = waiting.acquireAsync(permit("pool", 2));
        CompletableFuture<LockHandle> writer = waiting.acquireAsync(write("doc"));
        await().atMost(WAIT).until(() -> waiting.store().waiting().size() == 2);
        zookeeper.server().expireSession(ending.client());
        try (LockHandle permitted = permit.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                LockHandle written = writer.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(permitted.fencingToken()).isGreaterThan(Math.max(one.fencingToken(), two.fencingToken()));
            assertThat(written.fencingToken()).isGreaterThan(reading.fencingToken());
            await().atMost(WAIT).until(() -> ending.losses().size() == 3);
            assertThat(ending.losses()).containsExactlyInAnyOrder(
                    "/locks/pool " + one.fencingToken() + " " + LockLossDetection.SESSION,
                    "/locks/pool " + two.fencingToken() + " " + LockLossDetection.SESSION,
                    "/locks/doc " + reading.fencingToken() + " " + LockLossDetection.SESSION);
            assertThat(List.of(one, two, reading)).noneMatch(LockHandle::isHeld);
            assertThat(nodes("pool")).singleElement().asString().contains("-permits2-");
        }
        assertThat(waiting.losses()).isEmpty();
    }

    /**
     * A write lock asked on a key held as a semaphore of 3 fails at once with the one mismatch message, and its
     * node is gone before the call returns: the line holds the semaphore's node only, whose holder keeps its
     * permit.
     */
    @Test
    void aWriteLockOnASemaphoresKeyIsRefusedAtOnceNamingBothCountsAndLeavesNoNode() throws Exception {
        Application holder = application();
        Application other = application();
        LockHandle held = holder.acquire(permit("counted", 3));
        long before = System.nanoTime();
        assertThatExceptionOfType(LockException.class).isThrownBy(() -> other.acquire(write("counted")))
            .withMessage("Lock '/locks/counted' is in use as a semaphore of 3 permits (3 permits), but this request "
                    + "asks for a write lock (1 permit): every user of one key must ask for the same number of "
                    + "permits");
        assertThat(Duration.ofNanos(System.nanoTime() - before)).isLessThan(WAIT);
        assertThat(nodes("counted")).singleElement().asString().contains("-permits3-");
        assertThat(held.verifyHeld()).isTrue();
        held.close();
        assertThat(nodes("counted")).isEmpty();
    }

    /**
     * A semaphore's request arriving while a write lock is held and a read lock waits behind it is refused at once,
     * naming the key's kind as its oldest node has it; the waiting reader then gets in after the writer.
     */
    @Test
    void aPermitOnAReadWriteKeyIsRefusedNamingTheKindOfItsOldestNode() throws Exception {
        Application holder = application();
        Application other = application();
        LockHandle written = holder.acquire(write("ledger"));
        CompletableFuture<LockHandle> reader = other.acquireAsync(read("ledger"));
        await().atMost(WAIT).until(() -> other.store().waiting().containsKey("/locks/ledger"));
        assertThatExceptionOfType(LockException.class).isThrownBy(() -> other.acquire(permit("ledger", 4)))
            .withMessageStartingWith("Lock '/locks/ledger' is in use as a write lock (1 permit), but this request "
                    + "asks for a semaphore of 4 permits (4 permits)");
        assertThat(nodes("ledger")).hasSize(2);
        written.close();
        try (LockHandle read = reader.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(read.fencingToken()).isGreaterThan(written.fencingToken());
        }
    }

    /**
     * One key held in turn as a write lock, by two readers at once, as a write lock again, and once free as a
     * semaphore: every holder's fencing token (its node's creation zxid) is larger than every earlier holder's,
     * whatever its kind.
     */
    @Test
    void fencingTokensGrowAcrossWriteLocksReadLocksAndPermits() throws Exception {
        Application one = application();
        Application two = application();
        List<Long> fences = new ArrayList<>();
        try (LockHandle write = one.acquire(write("fenced"))) {
            fences.add(write.fencingToken());
        }
        try (LockHandle reading = one.acquire(read("fenced"));
                LockHandle alsoReading = two.acquire(read("fenced"))) {
            fences.add(reading.fencingToken());
            fences.add(alsoReading.fencingToken());
        }
        try (LockHandle write = two.acquire(write("fenced"))) {
            fences.add(write.fencingToken());
        }
        try (LockHandle permit = one.acquire(permit("fenced", 3));
                LockHandle another = two.acquire(permit("fenced", 3))) {
            fences.add(permit.fencingToken());
            fences.add(another.fencingToken());
        }
        assertThat(fences).isSorted().doesNotHaveDuplicates();
        assertThat(nodes("fenced")).isEmpty();
    }

    /**
     * A permit waiter behind both holders of a semaphore of 2 sends four requests (create, read the line, a watch
     * on each holder's node) and nothing more while it waits, however long. The newer holder releases first (a
     * release out of arrival order): the waiter is woken by its watch and let in.
     */
    @Test
    void aPermitWaiterWatchesTheNodesBeforeItAndIsWokenByAReleaseInAnyOrder() throws Exception {
        Application holder = application();
        Application waiter = application();
        AtomicInteger calls = CountingTracer.count(waiter.client());
        LockHandle older = holder.acquire(permit("watched", 2));
        LockHandle newer = holder.acquire(permit("watched", 2));
        CompletableFuture<LockHandle> taken = waiter.acquireAsync(permit("watched", 2));
        CountingTracer.awaitParked(calls, 4);
        assertThat(waiter.store().waiting()).containsEntry("/locks/watched", 1);
        newer.close();
        try (LockHandle permit = taken.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            assertThat(permit.fencingToken()).isGreaterThan(newer.fencingToken());
            assertThat(older.verifyHeld()).isTrue();
        }
        older.close();
    }

    /**
     * A write lock taken and released on a key nobody else uses costs the three requests it always has (create the
     * node, read the line, delete the node); so does a read lock.
     */
    @Test
    void anUncontendedWriteOrReadLockSendsThreeRequests() {
        Application application = application();
        application.acquire(write("warm-up")).close();
        AtomicInteger calls = CountingTracer.count(application.client());
        application.acquire(write("plain")).close();
        assertThat(calls).hasValue(3);
        application.acquire(read("plain")).close();
        assertThat(calls).hasValue(6);
    }

    /**
     * The test's own record of sections: the order they began in, and a breach whenever a writer's section had
     * anyone beside it or a reader's section had a writer beside it at any moment of it.
     */
    private static final class Sections {

        private final List<String> entered = new CopyOnWriteArrayList<>();

        private final List<String> breaches = new CopyOnWriteArrayList<>();

        private final AtomicInteger readers = new AtomicInteger();

        private final AtomicInteger writers = new AtomicInteger();

        /** A section under the lock: entered, some work (a few milliseconds, in which others could break in), left. */
        void run(String name, boolean writes) {
            (writes ? this.writers : this.readers).incrementAndGet();
            this.entered.add(name);
            for (int i = 0; i < 5; i++) {
                if (writes ? (this.readers.get() > 0 || this.writers.get() > 1) : this.writers.get() > 0) {
                    this.breaches.add(name + " beside " + this.readers.get() + " readers and " + this.writers.get()
                            + " writers");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
            (writes ? this.writers : this.readers).decrementAndGet();
        }

        List<String> entered() {
            return this.entered;
        }

        List<String> breaches() {
            return this.breaches;
        }
    }
}
