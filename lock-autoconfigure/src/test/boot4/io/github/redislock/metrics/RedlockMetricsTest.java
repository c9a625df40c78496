package io.github.redislock.metrics;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redlock.RedlockStore;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TaskThreads;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's meters on a Redlock application (three real nodes): the same names and tags as on one Redis, with
 * the values of Redlock's locks.
 */
class RedlockMetricsTest {

    private static RedisServer application;

    private static List<RedisServer> nodes;

    @BeforeAll
    static void startServers() {
        application = RedisServer.start();
        nodes = List.of(RedisServer.start(), RedisServer.start(), RedisServer.start());
    }

    /** A release reaches a majority before the call returns; the rest may still be on their way. */
    @AfterEach
    void emptyNodes() {
        nodes.forEach(RedisServer::flushAll);
    }

    @AfterAll
    static void stopServers() {
        application.close();
        nodes.forEach(RedisServer::close);
    }

    private static ApplicationContextRunner runner() {
        return LockContexts.runner(application)
            .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                    RedisLockMetricsAutoConfiguration.class))
            .withPropertyValues("redis-lock.redlock.nodes=" + String.join(",", nodes.stream().map(RedisServer::url)
                .toList()), "redis-lock.key-prefix=t:", "management.metrics.use-global-registry=false");
    }

    private static void deleteOnEveryNode(String key) {
        nodes.forEach((node) -> node.command("DEL", key));
    }

    @Test
    void theMetersBindToTheRedlockEngine() {
        runner().run((context) -> {
            assertThat(context).hasSingleBean(LockEngine.class).hasSingleBean(RedisLockMetrics.class);
            assertThat(context).getBean(LockStore.class).isInstanceOf(RedlockStore.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
            assertThat(meters.get("redis.lock.waiting").gauge().value()).isZero();
            assertThat(meters.get("redis.lock.renewal.failures").counter().count()).isZero();
            assertThat(meters.get("redis.lock.handoffs").tag("via", "redis").counter().count()).isZero();
        });
    }

    @Test
    void heldKeysAndWaitingThreadsAreGauged() {
        runner().run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            CompletableFuture<Void> waiter;
            try (LockHandle held = template.acquire(LockRequest.of("job", Duration.ZERO, null));
                    LockHandle other = template.acquire(LockRequest.of("other", Duration.ZERO, null))) {
                assertThat(meters.get("redis.lock.held").gauge().value()).isEqualTo(2.0);
                waiter = CompletableFuture.runAsync(() -> template.run("job", Duration.ofSeconds(20), null, () -> {
                }), TaskThreads.own());
                await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(meters.get("redis.lock.waiting").gauge().value()).isEqualTo(1.0));
            }
            waiter.get(10, TimeUnit.SECONDS);
            assertThat(meters.get("redis.lock.waiting").gauge().value()).isZero();
            assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
        });
    }

    /**
     * Rounds run by {@link LockEngine#renewNow()}: the default 30 s lease puts the engine's own first tick 10 s
     * away, after the test, so each round counted is the one the test ran.
     */
    @Test
    void aRenewalRoundAMajorityDoesNotAnswerIsCounted() {
        runner().withPropertyValues("spring.data.redis.timeout=300ms").run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            LockEngine client = context.getBean(LockEngine.class);
            try (LockHandle handle = context.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of("job", Duration.ZERO, null))) {
                nodes.get(0).pause();
                nodes.get(1).pause();
                try {
                    // One node of three answers: held or not is unknown, the round failed.
                    client.renewNow();
                }
                finally {
                    nodes.get(0).resume();
                    nodes.get(1).resume();
                }
                assertThat(meters.get("redis.lock.renewal.failures").counter().count()).isEqualTo(1);
                client.renewNow();
                assertThat(meters.get("redis.lock.renewal.failures").counter().count()).isEqualTo(1);
                assertThat(handle.isLost()).isFalse();
            }
        });
    }

    @Test
    void lostLocksAreCountedByHowTheyWereDetected() {
        runner().run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);

            LockHandle renewed = template.acquire(LockRequest.of("renewed", Duration.ZERO, null));
            deleteOnEveryNode("t:renewed");
            context.getBean(LockEngine.class).renewNow();
            renewed.close();

            LockHandle fixed = template.acquire(LockRequest.of("fixed", Duration.ZERO, Duration.ofSeconds(10)));
            deleteOnEveryNode("t:fixed");
            fixed.close();

            assertThat(meters.get("redis.lock.lost").tag("detection", "renewal").counter().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.lost").tag("detection", "release").counter().count()).isEqualTo(1);
        });
    }
}
