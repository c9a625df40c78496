package io.github.redislock.zookeeper.autoconfigure;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockGuardAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.zookeeper.ZooKeeperLockStore;
import io.github.redislock.testsupport.ZooKeeperServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each condition of the ZooKeeper auto-configuration both ways, with no Redis on the class path. */
@ExtendWith(OutputCaptureExtension.class)
class ZooKeeperLockAutoConfigurationTest {

    private static ZooKeeperServer server;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ZooKeeperLockAutoConfiguration.class, RedlockAutoConfiguration.class,
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
                assertThat(context.getBean(LockProvider.class)).isInstanceOf(LockEngine.class);
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
                assertThat(context).doesNotHaveBean(CuratorFramework.class).doesNotHaveBean(ZooKeeperLockStore.class);
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
