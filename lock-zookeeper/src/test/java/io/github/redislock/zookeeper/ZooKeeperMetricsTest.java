package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.metrics.RedisLockMetrics;
import io.github.redislock.testsupport.TaskThreads;
import io.github.redislock.testsupport.ZooKeeperServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's meters on a ZooKeeper application (Spring Boot's own start-up with Actuator's simple registry, a
 * real ZooKeeper server): the same names and tags as on Redis, bound to the ZooKeeper engine.
 */
class ZooKeeperMetricsTest {

    private static ZooKeeperServer server;

    private ConfigurableApplicationContext context;

    @BeforeAll
    static void startServer() {
        server = new ZooKeeperServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @AfterEach
    void closeApplication() {
        if (this.context != null) {
            this.context.close();
        }
    }

    private ConfigurableApplicationContext application() {
        this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
            .properties("redis-lock.zookeeper.connect-string=" + server.connectString(),
                    "redis-lock.zookeeper.session-timeout=30s", "redis-lock.zookeeper.connection-timeout=2s",
                    "management.metrics.use-global-registry=false")
            .run();
        return this.context;
    }

    @Test
    void theMetersBindToTheZooKeeperEngine() {
        ConfigurableApplicationContext application = application();
        assertThat(application.getBean(RedisLockMetrics.class)).isNotNull();
        assertThat(application.getBean(LockEngine.class).describe()).startsWith("ZooKeeper ");
        MeterRegistry meters = application.getBean(MeterRegistry.class);
        assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
        assertThat(meters.get("redis.lock.waiting").gauge().value()).isZero();
        // Nothing is renewed or handed over on ZooKeeper: the counters are there, at 0.
        assertThat(meters.get("redis.lock.renewal.failures").counter().count()).isZero();
        assertThat(meters.get("redis.lock.handoffs").tag("via", "redis").counter().count()).isZero();
        assertThat(meters.get("redis.lock.handoffs").tag("via", "local").counter().count()).isZero();
    }

    @Test
    void heldKeysAndWaitingThreadsAreGauged() throws Exception {
        ConfigurableApplicationContext application = application();
        MeterRegistry meters = application.getBean(MeterRegistry.class);
        DistributedLockTemplate template = application.getBean(DistributedLockTemplate.class);
        CompletableFuture<Void> first;
        CompletableFuture<Void> second;
        try (LockHandle held = template.acquire(LockRequest.of("job", Duration.ZERO, null));
                LockHandle other = template.acquire(LockRequest.of("other", Duration.ZERO, null))) {
            assertThat(meters.get("redis.lock.held").gauge().value()).isEqualTo(2.0);
            first = CompletableFuture.runAsync(() -> template.run("job", Duration.ofSeconds(20), null, () -> {
            }), TaskThreads.own());
            second = CompletableFuture.runAsync(() -> template.run("job", Duration.ofSeconds(20), null, () -> {
            }), TaskThreads.own());
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(meters.get("redis.lock.waiting").gauge().value()).isEqualTo(2.0));
        }
        first.get(10, TimeUnit.SECONDS);
        second.get(10, TimeUnit.SECONDS);
        assertThat(meters.get("redis.lock.waiting").gauge().value()).isZero();
        assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
    }

    @Test
    void aLockLostWithItsSessionIsCountedAsSession() throws Exception {
        ConfigurableApplicationContext application = application();
        MeterRegistry meters = application.getBean(MeterRegistry.class);
        LockHandle lock = application.getBean(DistributedLockTemplate.class)
            .acquire(LockRequest.of("expiring", Duration.ZERO, null));
        server.expireSession(application.getBean(CuratorFramework.class));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(meters.get("redis.lock.lost")
            .tag("detection", "session").counter().count()).isEqualTo(1));
        lock.close();
        assertThat(meters.get("redis.lock.lost").tag("detection", "release").counter().count()).isZero();
        assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {

    }
}
