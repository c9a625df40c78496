package io.github.redislock.zookeeper.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.actuate.RedisLocksEndpoint.HeldLockDescriptor;
import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockGuardAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.metrics.RedisLockMetrics;
import io.github.redislock.zookeeper.ZooKeeperLockStore;
import io.github.redislock.testsupport.ZooKeeperServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Each condition of the ZooKeeper auto-configuration both ways, with no Redis on the class path. */
@ExtendWith(OutputCaptureExtension.class)
class ZooKeeperLockAutoConfigurationTest {

    private static ZooKeeperServer server;

    /** Every {@link LockLostEvent} of the application context, for the tests that listen. */
    private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ZooKeeperLockAutoConfiguration.class, RedlockAutoConfiguration.class,
                RedisLockStoreAutoConfiguration.class, LockEngineAutoConfiguration.class,
                RedisLockAutoConfiguration.class, RedisLockGuardAutoConfiguration.class));

    @BeforeAll
    static void startServer() {
        server = new ZooKeeperServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Test
    void thisClassPathHasNoRedis() {
        assertThat(ClassUtils.isPresent("org.springframework.data.redis.core.StringRedisTemplate", null)).isFalse();
        assertThat(ClassUtils.isPresent("io.lettuce.core.RedisClient", null)).isFalse();
        assertThat(ClassUtils.isPresent("redis.clients.jedis.Jedis", null)).isFalse();
    }

    @Test
    void aConnectStringPutsTheLocksInZooKeeper(CapturedOutput output) {
        this.runner.withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).hasSingleBean(CuratorFramework.class).hasSingleBean(ZooKeeperLockStore.class);
                assertThat(context).hasSingleBean(LockStore.class).hasSingleBean(LockEngine.class);
                assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean(LockEngine.class));
                assertThat(context).hasSingleBean(DistributedLockTemplate.class)
                    .hasSingleBean(DistributedLockAdvisor.class);
                DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
                try (LockHandle lock = template.acquire(LockRequest.of("sku/1", Duration.ZERO, null))) {
                    assertThat(lock.key()).isEqualTo("/redis-lock/sku%2F1");
                    assertThat(lock.isHeld()).isTrue();
                }
            });
        assertThat(output).contains("redis-lock: locks are kept in ZooKeeper " + server.connectString() + " /redis-lock");
    }

    @Test
    void theApplicationsOwnCuratorFrameworkIsUsed() {
        this.runner.withUserConfiguration(OwnClient.class)
            .withPropertyValues("redis-lock.zookeeper.base-path=/apps/orders/locks")
            .run((context) -> {
                assertThat(context).hasSingleBean(CuratorFramework.class);
                assertThat(context).hasBean("ownClient");
                DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
                try (LockHandle lock = template.acquire(LockRequest.of("a", Duration.ZERO, null))) {
                    assertThat(lock.key()).isEqualTo("/apps/orders/locks/a");
                    assertThat(context.getBean(CuratorFramework.class).checkExists().forPath("/apps/orders/locks/a"))
                        .isNotNull();
                }
            });
    }

    @Test
    void withoutAConnectStringOrAClientNothingLocksAndTheGuardSaysSo() {
        this.runner.run((context) -> {
            assertThat(context).doesNotHaveBean(CuratorFramework.class).doesNotHaveBean(LockProvider.class)
                .doesNotHaveBean(DistributedLockAdvisor.class);
            assertThat(context).hasBean("redisLockUnlockedMethodsGuard");
        });
    }

    @Test
    void disabledLocksMakeNoClient() {
        this.runner
            .withPropertyValues("redis-lock.enabled=false",
                    "redis-lock.zookeeper.connect-string=" + server.connectString())
            .run((context) -> assertThat(context).doesNotHaveBean(CuratorFramework.class)
                .doesNotHaveBean(LockProvider.class));
    }

    @Test
    void anApplicationsOwnLockProviderWins() {
        this.runner.withUserConfiguration(OwnProvider.class)
            .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString())
            .run((context) -> {
                assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean("ownProvider"));
                // The store backs off as a whole: no client connects to an ensemble whose locks nobody takes.
                assertThat(context).doesNotHaveBean(CuratorFramework.class).doesNotHaveBean(ZooKeeperLockStore.class)
                    .doesNotHaveBean(LockEngine.class);
            });
    }

    @Test
    void anApplicationsOwnLockStoreWinsAndTheEngineRunsOverIt() {
        this.runner.withUserConfiguration(OwnClient.class, OwnStore.class)
            .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString())
            .run((context) -> {
                // The ZooKeeper auto-configuration backs off as a whole; the engine is built over the own store.
                assertThat(context).hasSingleBean(LockStore.class).hasBean("ownStore").hasSingleBean(LockEngine.class);
                DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
                try (LockHandle lock = template.acquire(LockRequest.of("a", Duration.ZERO, null))) {
                    assertThat(lock.key()).isEqualTo("/own/a");
                }
            });
    }

    @Test
    void aLockFoundLostIsPublishedWithTheEngineAsItsSource() {
        this.runner
            .withBean("lossListener", ApplicationListener.class,
                    () -> (ApplicationListener<LockLostEvent>) this.lost::add)
            .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString())
            .run((context) -> {
                CuratorFramework client = context.getBean(CuratorFramework.class);
                try (LockHandle lock = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("lost", Duration.ZERO, null))) {
                    // Its node deleted behind its back, as an operator or a session's end would.
                    for (String node : client.getChildren().forPath("/redis-lock/lost")) {
                        client.delete().forPath("/redis-lock/lost/" + node);
                    }
                    assertThat(lock.verifyHeld()).isFalse();
                }
                assertThat(this.lost).singleElement().satisfies((event) -> {
                    assertThat(event.getSource()).isSameAs(context.getBean(LockEngine.class));
                    assertThat(event.getKey()).isEqualTo("/redis-lock/lost");
                    assertThat(event.getDetection()).isEqualTo(LockLossDetection.COMMIT_CHECK);
                });
            });
    }

    @Test
    void theApplicationsInstanceInfoNamesTheHolder() {
        InstanceInfo billing = new InstanceInfo("billing", "billing-7", "host-b", 7);
        this.runner.withBean(InstanceInfo.class, () -> billing)
            .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString())
            .run((context) -> {
                assertThat(context).hasSingleBean(InstanceInfo.class);
                LockEngine engine = context.getBean(LockEngine.class);
                try (LockHandle lock = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("named", Duration.ZERO, null))) {
                    // The registry node is written once the session is there.
                    await().atMost(Duration.ofSeconds(10)).until(() -> engine.inspect("named").holder().known());
                    assertThat(engine.inspect("named").holder()).isEqualTo(LockInspection.Holder.of(billing));
                }
            });
    }

    @Test
    void theEndpointAndTheMetersShowTheZooKeeperEnginesLocks() {
        this.runner
            .withConfiguration(AutoConfigurations.of(RedisLocksEndpointAutoConfiguration.class,
                    RedisLockMetricsAutoConfiguration.class))
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString(),
                    "management.endpoints.web.exposure.include=redislocks",
                    "management.endpoint.redislocks.show-keys=always")
            .run((context) -> {
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                context.getBean(RedisLockMetrics.class).bindTo(meters);
                try (LockHandle lock = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("shown", Duration.ZERO, null))) {
                    assertThat(context.getBean(RedisLocksEndpoint.class).locks().held())
                        .extracting(HeldLockDescriptor::key).containsExactly("/redis-lock/shown");
                    assertThat(meters.get("redis.lock.held").gauge().value()).isEqualTo(1);
                }
            });
    }

    @Test
    void aConnectStringThatDoesNotParseStopsTheStartUpWithAnAnalysis() {
        for (String bad : new String[] { "", "localhost:port", "localhost:99999", "zk1:2181/bad/" }) {
            this.runner.withPropertyValues("redis-lock.zookeeper.connect-string=" + bad).run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = analysis(context.getStartupFailure());
                assertThat(analysis.getDescription()).as(bad)
                    .startsWith("redis-lock.zookeeper.connect-string '" + bad + "' is not a ZooKeeper connect string");
                assertThat(analysis.getAction()).contains("host:port");
            });
        }
    }

    @Test
    void anInvalidBasePathStopsTheStartUpWithAnAnalysis() {
        for (String bad : new String[] { "redis-lock", "/redis-lock/", "/a//b", "/a/./b", "/zookeeper/locks" }) {
            this.runner
                .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString(),
                        "redis-lock.zookeeper.base-path=" + bad)
                .run((context) -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = analysis(context.getStartupFailure());
                    assertThat(analysis.getDescription()).as(bad)
                        .startsWith("redis-lock.zookeeper.base-path '" + bad + "' is not a valid ZooKeeper path");
                    assertThat(analysis.getAction()).contains("absolute path");
                });
        }
    }

    @Test
    void anUnreachableEnsembleStartsAndLockCallsFailWithinTheConnectionTimeout() {
        // A loopback port nobody listens on (the server's own port, with the server stopped for good is not needed).
        int port = org.apache.curator.test.InstanceSpec.getRandomPort();
        this.runner
            .withPropertyValues("redis-lock.zookeeper.connect-string=127.0.0.1:" + port,
                    "redis-lock.zookeeper.connection-timeout=1s")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
                long start = System.nanoTime();
                assertThatThrownBy(() -> template.acquire(LockRequest.of("down", Duration.ofSeconds(30), null)))
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("no connection to ZooKeeper (127.0.0.1:" + port + ") within 1000 ms");
                // The connection timeout, not the 30 s wait time: a liveness bound, not a speed claim.
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900),
                        Duration.ofSeconds(10));
            });
    }

    private static FailureAnalysis analysis(Throwable failure) {
        FailureAnalysis analysis = new ZooKeeperConfigurationFailureAnalyzer().analyze(failure);
        assertThat(analysis).as("analysis of %s", failure).isNotNull();
        return analysis;
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClient {

        @Bean(destroyMethod = "close")
        CuratorFramework ownClient() {
            CuratorFramework client = CuratorFrameworkFactory.newClient(server.connectString(), new RetryOneTime(100));
            client.start();
            return client;
        }
    }

    /** A store of the application's own, on its own client ({@link OwnClient}). */
    @Configuration(proxyBeanMethods = false)
    static class OwnStore {

        @Bean
        ZooKeeperLockStore ownStore(CuratorFramework ownClient) {
            return new ZooKeeperLockStore(ownClient, "/own", Duration.ofSeconds(5));
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnProvider {

        @Bean
        LockProvider ownProvider() {
            return (request) -> {
                throw new LockException("not this one");
            };
        }
    }
}
