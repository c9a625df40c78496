package io.github.redislock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import io.github.redislock.engine.LockEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration's own {@code LockRegistryLeaderInitiator} over three registries (three applications) on one
 * Redis, Redlock and ZooKeeper, with its default heartbeat (500 ms) and a registry lease of 1 s. A monitor thread of the test samples every
 * initiator's {@code isLeader()} every millisecond for the whole test (an initiator's flag turns false before it
 * unlocks and true after it locked, so two true at once would be two holders) and counts the samples with more
 * than one leader; the candidates record what they were granted and revoked.
 */
@ParameterizedClass
@EnumSource(RegistryStore.class)
class LeaderInitiatorTest {

    private static final Duration LEASE = Duration.ofSeconds(1);

    @RegisterExtension
    static final RegistryServers servers = new RegistryServers();

    @Parameter
    RegistryStore store;

    /** What the tests opened, closed in reverse order after each. */
    private final List<AutoCloseable> opened = new ArrayList<>();

    /** The losses the applications' engines told ({@code <key> <detection>}). */
    private final List<String> losses = new CopyOnWriteArrayList<>();

    private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

    private final Queue<String> events = new ConcurrentLinkedQueue<>();

    private final AtomicInteger crowdedSamples = new AtomicInteger();

    private final AtomicBoolean monitoring = new AtomicBoolean(true);

    private Thread monitor;

    @BeforeEach
    void start() {
        for (int i = 0; i < 3; i++) {
            String node = "node-" + i;
            this.initiators.add(new LockRegistryLeaderInitiator(registry(),
                    new DefaultCandidate(node, "reports") {

                        @Override
                        public void onGranted(Context context) {
                            LeaderInitiatorTest.this.events.add("granted " + node);
                        }

                        @Override
                        public void onRevoked(Context context) {
                            LeaderInitiatorTest.this.events.add("revoked " + node);
                        }
                    }));
        }
        this.monitor = new Thread(() -> {
            while (this.monitoring.get()) {
                if (this.initiators.stream().filter((initiator) -> initiator.getContext().isLeader()).count() > 1) {
                    this.crowdedSamples.incrementAndGet();
                }
                LockSupport.parkNanos(1_000_000);
            }
        }, "leader-monitor");
        this.monitor.start();
    }

    @AfterEach
    void stop() throws Exception {
        this.initiators.forEach(LockRegistryLeaderInitiator::stop);
        this.monitoring.set(false);
        this.monitor.join();
        for (int i = this.opened.size() - 1; i >= 0; i--) {
            this.opened.get(i).close();
        }
    }

    /** A registry over a new application's engine on the store under test. */
    private DistributedLockRegistry registry() {
        LockEngine engine = this.store.engine(servers,
                (key, token, fence, detection) -> this.losses.add(key + " " + detection), this.opened);
        this.opened.add(engine);
        DistributedLockRegistry registry = new DistributedLockRegistry(engine, LEASE);
        this.opened.add(registry::destroy);
        return registry;
    }

    @Test
    void oneLeaderAtATimeKeepsLeadingPastTheLeaseAndHandsOverOnStop() {
        this.initiators.forEach(LockRegistryLeaderInitiator::start);
        LockRegistryLeaderInitiator first = awaitOneLeader();
        long since = System.nanoTime();
        // Three leases: held past each by the registry's renewal, not taken by the others' heartbeats.
        await().atMost(Duration.ofSeconds(30)).until(() -> System.nanoTime() - since > LEASE.multipliedBy(3).toNanos());
        assertThat(first.getContext().isLeader()).isTrue();
        assertThat(this.events).as("one grant, nothing revoked").hasSize(1);
        first.stop();
        LockRegistryLeaderInitiator second = awaitOneLeader();
        assertThat(second).isNotSameAs(first);
        second.stop();
        LockRegistryLeaderInitiator third = awaitOneLeader();
        assertThat(third).isNotSameAs(first).isNotSameAs(second);
        assertThat(this.events).hasSize(5).filteredOn((event) -> event.startsWith("granted")).hasSize(3)
            .doesNotHaveDuplicates();
        assertThat(this.crowdedSamples.get()).as("samples with more than one leader").isZero();
        assertThat(this.losses).isEmpty();
    }

    private LockRegistryLeaderInitiator awaitOneLeader() {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
            .until(() -> this.initiators.stream().filter((initiator) -> initiator.getContext().isLeader()).count() == 1);
        return this.initiators.stream().filter((initiator) -> initiator.getContext().isLeader()).findFirst()
            .orElseThrow();
    }
}
