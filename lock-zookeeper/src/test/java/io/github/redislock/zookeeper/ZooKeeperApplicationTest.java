package io.github.redislock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.observation.tck.TestObservationRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.ZooKeeperServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Whole applications (Spring Boot's own start-up, auto-configuration from the class path, which holds no Redis)
 * locking in a real ZooKeeper server through {@code @DistributedLock} and the template. The witness of mutual
 * exclusion is not the library: a racy read-modify-write of a counter on a second ZooKeeper server, an overlap
 * count in the test, and the fencing tokens in the order the critical sections ran.
 */
class ZooKeeperApplicationTest {

    private static ZooKeeperServer locks;

    private static ZooKeeperServer witness;

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @BeforeAll
    static void startServers() {
        locks = new ZooKeeperServer();
        witness = new ZooKeeperServer();
    }

    @AfterAll
    static void stopServers() {
        locks.close();
        witness.close();
    }

    @AfterEach
    void closeApplications() {
        Collections.reverse(this.contexts);
        this.contexts.forEach(ConfigurableApplicationContext::close);
    }

    /**
     * Sessions end here only when a test expires one ({@link ZooKeeperServer#expireSession}): the session timeout
     * is long enough that a stall of the loaded build machine (7 s was seen against 4 s) never ends one by chance.
     */
    private ConfigurableApplicationContext application(String... properties) {
        List<String> all = new ArrayList<>(List.of("redis-lock.zookeeper.connect-string=" + locks.connectString(),
                "redis-lock.zookeeper.session-timeout=30s", "redis-lock.zookeeper.connection-timeout=2s",
                "management.endpoints.access.default=read-only", "management.endpoints.web.exposure.include=*",
                "management.endpoint.redislocks.show-keys=always"));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
            .web(WebApplicationType.NONE)
            .properties(all.toArray(String[]::new))
            .run();
        this.contexts.add(context);
        return context;
    }

    @Test
    void twoApplicationsWithSeveralThreadsEachNeverOverlap() throws Exception {
        CuratorFramework witnessClient = witness.client(10_000);
        try {
            witnessClient.create().orSetData().forPath("/counter", "0".getBytes(StandardCharsets.UTF_8));
            Witness record = new Witness(witnessClient);
            List<Counter> counters = List.of(application().getBean(Counter.class), application().getBean(Counter.class));
            int threads = 4;
            int increments = 15;
            ExecutorService pool = Executors.newFixedThreadPool(counters.size() * threads);
            CyclicBarrier start = new CyclicBarrier(counters.size() * threads);
            List<Future<?>> done = new ArrayList<>();
            for (Counter counter : counters) {
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < increments; i++) {
                            counter.increment(record);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            int total = counters.size() * threads * increments;
            assertThat(new String(witnessClient.getData().forPath("/counter"), StandardCharsets.UTF_8))
                .isEqualTo(Integer.toString(total));
            assertThat(record.overlaps).hasValue(0);
            assertThat(record.fences).hasSize(total);
            for (int i = 1; i < total; i++) {
                assertThat(record.fences.get(i)).as("fence %d", i).isGreaterThan(record.fences.get(i - 1));
            }
        }
        finally {
            witnessClient.close();
        }
    }

    @Test
    void theSameWorkloadWithoutTheLockLosesUpdates() throws Exception {
        // The control: the witness can see a missing lock.
        CuratorFramework witnessClient = witness.client(10_000);
        try {
            witnessClient.create().orSetData().forPath("/unlocked", "0".getBytes(StandardCharsets.UTF_8));
            Witness record = new Witness(witnessClient);
            int threads = 8;
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CyclicBarrier start = new CyclicBarrier(threads);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 15; i++) {
                        record.increment("/unlocked", 0);
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get(120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            assertThat(record.overlaps).hasPositiveValue();
        }
        finally {
            witnessClient.close();
        }
    }

    @Test
    void asyncReactiveSkipAndFallbackMethodsLockToo() throws Exception {
        ConfigurableApplicationContext context = application();
        Jobs jobs = context.getBean(Jobs.class);
        DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
        assertThat(jobs.async("a").get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(jobs.reactive("r").block(Duration.ofSeconds(10))).isTrue();
        try (LockHandle held = holdElsewhere("job:busy")) {
            assertThat(jobs.skipped("busy")).isNull();
            assertThat(jobs.withFallback("busy")).isEqualTo("fallback busy");
            // Not acquired is known before the work starts: thrown by the call, as on Redis.
            assertThatThrownBy(() -> jobs.async("busy")).isInstanceOf(LockNotAcquiredException.class);
            assertThatThrownBy(() -> jobs.reactive("busy").block(Duration.ofSeconds(10)))
                .isInstanceOf(LockNotAcquiredException.class);
            assertThat(held.isHeld()).isTrue();
        }
        assertThat(jobs.withFallback("free")).isEqualTo("ran free");
        try (LockHandle handle = template.acquire(LockRequest.of("job:nested", Duration.ZERO, null))) {
            // The template's lock and the annotated method's are one, re-entered by the same thread.
            assertThat(jobs.nested("nested")).isEqualTo(handle.fencingToken());
        }
    }

    @Test
    void anExpiredSessionPublishesLockLostEventAndTheHandleIsNoLongerHeld() throws Exception {
        ConfigurableApplicationContext context = application();
        DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
        LockHandle lock = template.acquire(LockRequest.of("expiring", Duration.ZERO, null));
        locks.expireSession(context.getBean(CuratorFramework.class));
        Losses losses = context.getBean(Losses.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> !losses.events.isEmpty());
        LockLostEvent event = losses.events.get(0);
        assertThat(event.getKey()).isEqualTo("/redis-lock/expiring");
        assertThat(event.getFencingToken()).isEqualTo(lock.fencingToken());
        assertThat(event.getDetection()).isEqualTo(LockLossDetection.SESSION);
        assertThat(lock.isHeld()).isFalse();
        assertThat(lock.isLost()).isTrue();
        lock.close();
        // Curator connects a new session: locking goes on.
        try (LockHandle next = template.acquire(LockRequest.of("expiring", Duration.ofSeconds(10), null))) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
        assertThat(losses.events).hasSize(1);
    }

    @Test
    void aSessionLostWhileTheMethodRunsFailsItWithOnLeaseLostThrow() {
        ConfigurableApplicationContext context = application("redis-lock.on-lease-lost=throw");
        Jobs jobs = context.getBean(Jobs.class);
        CuratorFramework client = context.getBean(CuratorFramework.class);
        Losses losses = context.getBean(Losses.class);
        AtomicReference<Boolean> heldAfterExpiry = new AtomicReference<>();
        assertThatThrownBy(() -> jobs.during("expires", () -> {
            LockHandle lock = LockContext.assertHeld();
            try {
                locks.expireSession(client);
            }
            catch (Exception ex) {
                throw new IllegalStateException(ex);
            }
            // The event, not the handle's flag: the engine marks the lock lost first and then, on the thread that
            // noticed (Curator's), publishes the event; the flag alone could let this test look before that.
            await().atMost(Duration.ofSeconds(10)).until(() -> !losses.events.isEmpty());
            assertThat(lock.isLost()).isTrue();
            heldAfterExpiry.set(lock.isHeld());
        })).isInstanceOf(LockLostException.class).hasMessageContaining("job:expires");
        assertThat(heldAfterExpiry.get()).isFalse();
        assertThat(losses.events).singleElement()
            .satisfies((event) -> assertThat(event.getDetection()).isEqualTo(LockLossDetection.SESSION));
    }

    @Test
    void observationsAndTheEndpointSeeZooKeeperLocks() throws Exception {
        ConfigurableApplicationContext context = application();
        TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);
        RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
        Jobs jobs = context.getBean(Jobs.class);
        AtomicReference<Object> seen = new AtomicReference<>();
        jobs.during("observed", () -> seen.set(endpoint.locks()));
        assertThat(seen.get()).asString().contains("/redis-lock/job:observed");
        assertThat(endpoint.locks().held()).isEmpty();
        assertThat(registry).hasObservationWithNameEqualTo("redis.lock.acquire").that()
            .hasLowCardinalityKeyValue("outcome", "acquired")
            .hasHighCardinalityKeyValue("redis.lock.key", "job:observed");
        assertThat(registry).hasObservationWithNameEqualTo("redis.lock.hold").that().hasBeenStopped();
    }

    @Test
    void anotherApplicationsEndpointNamesTheHolderByItsApplicationName() throws Exception {
        ConfigurableApplicationContext orders = application("spring.application.name=orders");
        ConfigurableApplicationContext reports = application("spring.application.name=reports");
        RedisLocksEndpoint endpoint = reports.getBean(RedisLocksEndpoint.class);
        String node = "/redis-lock/~instances/" + orders.getBean(LockEngine.class).ownerId();
        try (LockHandle lock = orders.getBean(DistributedLockTemplate.class)
            .acquire(LockRequest.of("job:report", Duration.ZERO, null))) {
            // Its registry node is written in the background at start-up.
            await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.lock("job:report").holder().known());
            RedisLocksEndpoint.LockViewDescriptor view = endpoint.lock("job:report");
            assertThat(view.key()).isEqualTo("/redis-lock/job:report");
            assertThat(view.held()).isTrue();
            assertThat(view.state()).isEqualTo("HELD");
            assertThat(view.holder().application()).isEqualTo("orders");
            assertThat(view.holder().pid()).isEqualTo(ProcessHandle.current().pid());
            assertThat(view.holder().host()).isNotBlank();
            assertThat(view.holder().since()).isNotNull();
            assertThat(view.fencingToken()).isEqualTo(lock.fencingToken());
            assertThat(view.leaseRemaining()).isNull();
            assertThat(view.waiting()).isZero();
        }
        assertThat(endpoint.lock("job:report").held()).isFalse();
        CuratorFramework client = reports.getBean(CuratorFramework.class);
        assertThat(client.checkExists().forPath(node)).isNotNull();
        orders.close();
        assertThat(client.checkExists().forPath(node)).isNull();
    }

    @Test
    void theEndpointAnswersANameZooKeeperCannotStoreAsTheCallersFaultNotTheStores() {
        RedisLocksEndpoint endpoint = application().getBean(RedisLocksEndpoint.class);
        // An unpaired surrogate has no UTF-8 form: refused before anything is sent, so a 400, not a 500.
        assertThatThrownBy(() -> endpoint.lock("half \uD800 a character"))
            .isInstanceOf(InvalidEndpointRequestException.class)
            .hasMessageContaining("not valid Unicode");
        assertThatThrownBy(() -> endpoint.lock("x".repeat(600)))
            .isInstanceOf(InvalidEndpointRequestException.class);
    }

    @Test
    void theStoreInUseIsTheZooKeeperOne() {
        ConfigurableApplicationContext context = application();
        assertThat(context.getBean(io.github.redislock.LockProvider.class)).isInstanceOf(LockEngine.class);
        assertThat(context.getBean(LockEngine.class).describe()).isEqualTo("ZooKeeper " + locks.connectString()
                + " /redis-lock");
    }

    /** A lock on the key held by another application (its own session). */
    private LockHandle holdElsewhere(String name) {
        return application().getBean(DistributedLockTemplate.class)
            .acquire(LockRequest.of(name, Duration.ZERO, null));
    }

    /**
     * The judge: a racy read-modify-write of a counter on its own ZooKeeper server (read, then write without a
     * version check), an overlap count, and the fencing tokens in the order the sections ran.
     */
    static final class Witness {

        private final CuratorFramework client;

        final AtomicInteger inside = new AtomicInteger();

        final AtomicInteger overlaps = new AtomicInteger();

        final List<Long> fences = new CopyOnWriteArrayList<>();

        Witness(CuratorFramework client) {
            this.client = client;
        }

        void increment(String path, long fence) throws Exception {
            if (this.inside.incrementAndGet() != 1) {
                this.overlaps.incrementAndGet();
            }
            try {
                this.fences.add(fence);
                int value = Integer.parseInt(new String(this.client.getData().forPath(path), StandardCharsets.UTF_8));
                this.client.setData().forPath(path, Integer.toString(value + 1).getBytes(StandardCharsets.UTF_8));
            }
            finally {
                this.inside.decrementAndGet();
            }
        }
    }

    public static class Counter {

        @DistributedLock(key = "counter", waitTime = "60s")
        public void increment(Witness witness) throws Exception {
            witness.increment("/counter", LockContext.assertHeld().fencingToken());
        }
    }

    public static class Jobs {

        @DistributedLock(key = "job:#name")
        public CompletableFuture<Boolean> async(String name) {
            return CompletableFuture.supplyAsync(() -> LockContext.current().isEmpty(), TaskThreads.own());
        }

        @DistributedLock(key = "job:#name")
        public Mono<Boolean> reactive(String name) {
            return Mono.fromSupplier(() -> true);
        }

        @DistributedLock(key = "job:#name", onFailure = OnLockFailure.SKIP)
        public String skipped(String name) {
            return "ran " + name;
        }

        @DistributedLock(key = "job:#name", fallbackMethod = "fallback")
        public String withFallback(String name) {
            return "ran " + name;
        }

        public String fallback(String name) {
            return "fallback " + name;
        }

        @DistributedLock(key = "job:#name")
        public long nested(String name) {
            return LockContext.assertHeld().fencingToken();
        }

        @DistributedLock(key = "job:#name")
        public void during(String name, Runnable work) {
            work.run();
        }
    }

    public static class Losses {

        final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

        @EventListener
        public void lost(LockLostEvent event) {
            this.events.add(event);
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

        @Bean
        Counter counter() {
            return new Counter();
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }

        @Bean
        Losses losses() {
            return new Losses();
        }

        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }
}
