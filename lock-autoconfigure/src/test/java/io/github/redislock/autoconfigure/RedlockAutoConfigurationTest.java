package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockProvider;
import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.actuate.RedisLocksEndpoint.HeldLockDescriptor;
import io.github.redislock.actuate.RedisLocksEndpoint.LockViewDescriptor;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.RedisLockStore;
import io.github.redislock.redlock.RedlockStore;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedlockMasters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code redis-lock.redlock.nodes}: Redlock as the lock provider, on connections built with the application's
 * client library and settings; without it the one-Redis engine; bad node lists fail the start-up.
 */
class RedlockAutoConfigurationTest {

    private static RedisServer application;

    /**
     * Emptied after each test: a release reaches a majority before the call returns, and the rest of the nodes may
     * still be on their way when the test's application context closes.
     */
    @RegisterExtension
    static final RedlockMasters nodes = new RedlockMasters(3);

    @BeforeAll
    static void startServer() {
        application = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        application.close();
    }

    private static ApplicationContextRunner runner() {
        return LockContexts.runner(application);
    }

    private static String nodeList() {
        return String.join(",", nodes.all().stream().map(RedisServer::url).toList());
    }

    @Test
    void theEndpointAndItsHolderViewWorkOnRedlock() {
        runner().withConfiguration(AutoConfigurations.of(RedisLocksEndpointAutoConfiguration.class))
            .withPropertyValues("redis-lock.redlock.nodes=" + nodeList(), "redis-lock.key-prefix=app:",
                    "spring.application.name=reports", "management.endpoints.web.exposure.include=redislocks",
                    "management.endpoint.redislocks.show-keys=always")
            .run((context) -> {
                RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
                try (LockHandle handle = context.getBean(DistributedLockTemplate.class)
                    .tryAcquire("job", Duration.ZERO, null)
                    .orElseThrow()) {
                    assertThat(endpoint.locks().held()).extracting(HeldLockDescriptor::key).containsExactly("app:job");
                    // The registry entries are written on a thread of their own at start-up.
                    await().atMost(Duration.ofSeconds(10)).until(() -> endpoint.lock("job").holder().known());
                    LockViewDescriptor view = endpoint.lock("job");
                    assertThat(view.state()).isEqualTo("HELD");
                    assertThat(view.holder().application()).isEqualTo("reports");
                    assertThat(view.fencingToken()).isEqualTo(handle.fencingToken());
                    assertThat(view.waiting()).isNull();
                }
                assertThat(endpoint.lock("job").held()).isFalse();
            });
    }

    @ParameterizedTest
    @EnumSource(ClientLibrary.class)
    void nodesMakeRedlockTheLockProviderOnTheApplicationsClientLibrary(ClientLibrary library) {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList(),
                "spring.data.redis.client-type=" + library.clientType(), "redis-lock.key-prefix=app:")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(LockStore.class)).isInstanceOf(RedlockStore.class);
                assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean(LockEngine.class));
                assertThat(context).doesNotHaveBean(RedisLockStore.class);
                DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
                try (LockHandle handle = template.tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                    String owner = handle.token().substring(0, handle.token().indexOf(':') + 1);
                    org.awaitility.Awaitility.await().untilAsserted(() -> assertThat(nodes.all()).allSatisfy((node) ->
                            assertThat((String) node.command("GET", "app:job")).startsWith(owner)));
                    assertThat(application.command("EXISTS", "app:job")).isEqualTo(0L);
                }
                RedlockConnections connections = context.getBean(RedlockConnections.class);
                assertThat(connections.factories()).hasSize(3)
                    .allSatisfy((factory) -> assertThat(factory.getClass().getSimpleName())
                        .startsWithIgnoringCase(library.clientType()));
            });
    }

    @Test
    void withoutNodesTheOneRedisEngineLocks() {
        runner().run((context) -> {
            assertThat(context.getBean(LockStore.class)).isInstanceOf(RedisLockStore.class);
            assertThat(context).doesNotHaveBean(RedlockConnections.class);
        });
    }

    @Test
    void aLockProviderOfTheApplicationsLeavesRedlockOutAltogether() {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList())
            .withBean("ownProvider", LockProvider.class, () -> (request) -> {
                throw new LockException("not this one");
            })
            .run((context) -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(RedlockConnections.class)
                .doesNotHaveBean(LockStore.class)
                .doesNotHaveBean(LockEngine.class));
    }

    @Test
    void aLockStoreOfTheApplicationsTakesThePlaceOfRedlock() {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList())
            .withUserConfiguration(OwnStore.class)
            .run((context) -> {
                assertThat(context).doesNotHaveBean(RedlockConnections.class).hasSingleBean(LockStore.class)
                    .hasBean("ownStore");
                try (LockHandle handle = context.getBean(DistributedLockTemplate.class)
                    .tryAcquire("job", Duration.ZERO, null)
                    .orElseThrow()) {
                    assertThat(handle.key()).isEqualTo("own:job");
                }
            });
    }

    @Test
    void fewerThanThreeNodesFailTheStartUpWithCauseAndFix() {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodes.get(0).url() + "," + nodes.get(1).url())
            .run((context) -> {
                FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains("lists 2 Redis master(s)");
                assertThat(analysis.getAction()).contains("at least 3");
            });
    }

    @Test
    void aNodeListedTwiceOrNotARedisUrlFailsTheStartUp() {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList() + "," + nodes.get(0).url())
            .run((context) -> assertThat(new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure())
                .getDescription()).contains("twice"));
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList() + ",http://127.0.0.1:1")
            .run((context) -> assertThat(new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure())
                .getDescription()).contains("not a redis:// URL"));
    }

    @Test
    void aBadNodeUrlIsNamedWithItsPasswordMasked() {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList() + ",redis://locker:s3cret pw@127.0.0.1:1")
            .run((context) -> assertThat(new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure())
                .getDescription()).contains("redis://locker:******@127.0.0.1:1").doesNotContain("s3cret"));
        assertThat(RedlockConnections.masked("redis://s3cret@host:1")).isEqualTo("redis://******@host:1");
        assertThat(RedlockConnections.masked("redis://host:1")).isEqualTo("redis://host:1");
    }

    @Test
    void replicaAcknowledgementWithRedlockFailsTheStartUp() {
        runner().withPropertyValues("redis-lock.redlock.nodes=" + nodeList(), "redis-lock.replicas-to-acknowledge=1")
            .run((context) -> assertThat(new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure())
                .getAction()).contains("redis-lock.replicas-to-acknowledge to 0"));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {

        @Bean
        RedisLockStore ownStore(RedisConnectionFactory connectionFactory) {
            return new RedisLockStore(connectionFactory, "own:", null, 0, Duration.ZERO);
        }
    }
}
