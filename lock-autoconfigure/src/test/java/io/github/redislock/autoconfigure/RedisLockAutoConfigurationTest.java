package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockProvider;
import io.github.redislock.OnLeaseLost;
import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.aop.LockOperationSource;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.redis.RedisLockStore;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TaskThreads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class RedisLockAutoConfigurationTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private ApplicationContextRunner runner() {
        return LockContexts.runner(redis);
    }

    /** Ours, with no Redis connection: no Boot Redis auto-configuration. */
    private static ApplicationContextRunner withoutRedis() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class,
                LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class));
    }

    @Test
    void createsEngineTemplateAndAdvisorOnBootsRedisConnection() {
        runner().run((context) -> {
            assertThat(context).hasSingleBean(LockEngine.class).hasSingleBean(DistributedLockTemplate.class)
                    .hasSingleBean(DistributedLockAdvisor.class).hasSingleBean(LockOperationSource.class);
            assertThat(context).hasSingleBean(RedisConnectionFactory.class);
            assertThat(context.getBean(LockStore.class)).isInstanceOf(RedisLockStore.class);
            assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean(LockEngine.class));
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
                    .isEqualTo(RedisLockProperties.DEFAULT_ORDER).isLessThan(Ordered.LOWEST_PRECEDENCE);
        });
    }

    @Test
    void backsOffWhenDisabled() {
        runner().withPropertyValues("redis-lock.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(LockEngine.class).doesNotHaveBean(LockStore.class)
                    .doesNotHaveBean(DistributedLockTemplate.class).doesNotHaveBean(DistributedLockAdvisor.class);
        });
    }

    @Test
    void withoutSpringDataRedisOnlyTheRedisEngineBacksOff() {
        // Another store's provider (the ZooKeeper module's) still gets the template and the advice, without Redis.
        withoutRedis().withClassLoader(new FilteredClassLoader(StringRedisTemplate.class)).run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(LockStore.class)
                            .doesNotHaveBean(LockEngine.class)
                            .doesNotHaveBean(DistributedLockTemplate.class)
                            .doesNotHaveBean(DistributedLockAdvisor.class);
                });
    }

    @Test
    void backsOffWithoutConnectionFactory() {
        withoutRedis().run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(LockStore.class)
                .doesNotHaveBean(LockEngine.class).doesNotHaveBean(DistributedLockAdvisor.class));
    }

    @Test
    void userBeansWin() {
        runner().withUserConfiguration(CustomBeans.class).run((context) -> {
            assertThat(context).hasSingleBean(DistributedLockTemplate.class);
            assertThat(context.getBean(DistributedLockTemplate.class)).isSameAs(CustomBeans.TEMPLATE);
            // A provider of the application's own, here a facade over the engine: the store and the engine back off.
            assertThat(context).getBean("customClient").isSameAs(context.getBean(LockProvider.class))
                    .isSameAs(context.getBean(LockEngine.class));
            assertThat(context).doesNotHaveBean(LockStore.class);
        });
    }

    @Test
    void aLockProviderOfTheUsersReplacesTheRedisEngineBehindTheTemplate() {
        runner().withUserConfiguration(CustomProvider.class).run((context) -> {
            assertThat(context).doesNotHaveBean(LockEngine.class).doesNotHaveBean(LockStore.class)
                    .hasSingleBean(LockProvider.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThat(template.execute("job", null, null, () -> LockContext.current().orElseThrow().key()))
                    .isEqualTo("in-memory:job");
        });
    }

    @Test
    void aLockProviderOfTheUsersNeedsNoRedisConnectionFactory() {
        withoutRedis().withUserConfiguration(CustomProvider.class).run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RedisConnectionFactory.class)
                            .doesNotHaveBean(LockEngine.class).hasSingleBean(DistributedLockAdvisor.class);
                    DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
                    assertThat(template.execute("job", null, null, () -> LockContext.current().orElseThrow().key()))
                            .isEqualTo("in-memory:job");
                });
    }

    @Test
    void theRedisStoreStopsListeningAndLeavesTheRegistryJustBeforeTheConnectionFactoryStops() {
        runner().withPropertyValues("redis-lock.key-prefix=app:").run((context) -> {
            RedisLockStore store = context.getBean(RedisLockStore.class);
            SmartLifecycle connections = (SmartLifecycle) context.getBean(RedisConnectionFactory.class);
            // A higher phase stops first.
            assertThat(store.isRunning()).isTrue();
            assertThat(store.getPhase()).isGreaterThan(connections.getPhase());
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            try (LockHandle held = template.tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                // Another thread waits for the key a moment, so that the store listens for hand-offs.
                CompletableFuture.runAsync(() -> template.tryAcquire("job", Duration.ofMillis(200), null), TaskThreads.own()).join();
                await().atMost(Duration.ofSeconds(10)).until(() -> !handoffChannels().isEmpty());
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !registryEntries().isEmpty());
            // Still listening with nobody waiting: only the store's stop ends it.
            assertThat(handoffChannels()).isNotEmpty();
            context.stop();
            assertThat(store.isRunning()).isFalse();
            assertThat(handoffChannels()).isEmpty();
            assertThat(registryEntries()).isEmpty();
        });
    }

    private static List<?> handoffChannels() {
        return (List<?>) redis.command("PUBSUB", "CHANNELS", "app:~lock~*");
    }

    private static List<?> registryEntries() {
        return (List<?>) redis.command("KEYS", "app:~lock~instance:*");
    }

    @Test
    void bindsProperties() {
        runner().withPropertyValues("redis-lock.key-prefix=app:", "redis-lock.wait-time=500ms",
                "redis-lock.lease-time=PT10S", "redis-lock.order=5").run((context) -> {
                    RedisLockProperties properties = context.getBean(RedisLockProperties.class);
                    assertThat(properties.getKeyPrefix()).isEqualTo("app:");
                    assertThat(properties.getWaitTime()).isEqualTo(Duration.ofMillis(500));
                    assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofSeconds(10));
                    assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(5);
                });
    }

    @Test
    void defaultsAreDocumentedOnes() {
        runner().run((context) -> {
            RedisLockProperties properties = context.getBean(RedisLockProperties.class);
            assertThat(properties.isEnabled()).isTrue();
            assertThat(properties.getKeyPrefix()).isEmpty();
            assertThat(properties.getWaitTime()).isZero();
            assertThat(properties.getLeaseTime()).isEqualTo(Duration.ofSeconds(30));
        });
    }

    @Test
    void zeroLeaseFailsBindingNamingTheProperty() {
        runner().withPropertyValues("redis-lock.lease-time=0s").run((context) -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("redis-lock.lease-time"));
    }

    @Test
    void negativeWaitFailsBindingNamingTheProperty() {
        runner().withPropertyValues("redis-lock.wait-time=-1s").run((context) -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("redis-lock.wait-time"));
    }

    @Test
    void unparsableDurationFailsBindingNamingTheProperty() {
        runner().withPropertyValues("redis-lock.lease-time=soon").run((context) -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("redis-lock.lease-time"));
    }

    @Test
    void replicaAcknowledgementIsOffByDefaultAndBinds() {
        runner().run((context) -> assertThat(context.getBean(RedisLockProperties.class).getReplicasToAcknowledge())
            .isZero());
        runner().withPropertyValues("redis-lock.replicas-to-acknowledge=2", "redis-lock.replication-timeout=1s")
            .run((context) -> {
                RedisLockProperties properties = context.getBean(RedisLockProperties.class);
                assertThat(properties.getReplicasToAcknowledge()).isEqualTo(2);
                assertThat(properties.getReplicationTimeout()).isEqualTo(Duration.ofSeconds(1));
            });
    }

    @Test
    void negativeReplicasToAcknowledgeFailBindingNamingTheProperty() {
        runner().withPropertyValues("redis-lock.replicas-to-acknowledge=-1").run((context) -> assertThat(context)
            .hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.replicas-to-acknowledge"));
    }

    @Test
    void zeroReplicationTimeoutFailsBindingNamingTheProperty() {
        runner().withPropertyValues("redis-lock.replication-timeout=0ms").run((context) -> assertThat(context)
            .hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.replication-timeout"));
    }

    @Test
    void aClockDriftOfHalfTheLeaseFailsBindingNamingThePropertyAndTheRange() {
        runner().withPropertyValues("redis-lock.clock-drift=0.5").run((context) -> assertThat(context)
            .hasFailed().getFailure().rootCause().hasMessageContaining("redis-lock.clock-drift")
            .hasMessageContaining("must be at least 0 and below 0.5"));
    }

    @Test
    void theClockDriftAllowanceDefaultsToTheStoresOwn() {
        assertThat(new RedisLockProperties().getClockDrift()).isEqualTo(RedisLockStore.DEFAULT_CLOCK_DRIFT);
    }

    @Test
    void theClockDriftAllowanceShortensHowLongALockCountsAsHeld() {
        runner().withPropertyValues("redis-lock.clock-drift=0.1").run((context) -> assertThat(
                context.getBean(RedisLockStore.class).validNanos(3000))
            .isEqualTo(Duration.ofMillis(3000 - 300 - 2).toNanos()));
    }

    @Test
    void replicaAcknowledgementOnAClusterConnectionFailsTheStartUpWithCauseAndFix() {
        runner().withPropertyValues("spring.data.redis.cluster.nodes=" + redis.server().host() + ":"
                + redis.server().port(), "redis-lock.replicas-to-acknowledge=1").run((context) -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = new LockConfigurationFailureAnalyzer()
                        .analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription()).contains("redis-lock.replicas-to-acknowledge is 1")
                        .contains("Redis Cluster");
                    assertThat(analysis.getAction()).contains("redis-lock.replicas-to-acknowledge to 0");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomProvider {

        @Bean
        LockProvider inMemoryLocks() {
            return (request) -> new LockHandle() {

                @Override
                public String key() {
                    return "in-memory:" + request.keys().get(0);
                }

                @Override
                public String token() {
                    return "t:1";
                }

                @Override
                public long fencingToken() {
                    return 1;
                }

                @Override
                public boolean isHeld() {
                    return true;
                }

                @Override
                public boolean isLost() {
                    return false;
                }

                @Override
                public boolean verifyHeld() {
                    return true;
                }

                @Override
                public void close() {
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomBeans {

        static final DistributedLockTemplate TEMPLATE = new DistributedLockTemplate(null, Duration.ZERO,
                OnLeaseLost.WARN);

        @Bean
        DistributedLockTemplate customTemplate() {
            return TEMPLATE;
        }

        @Bean
        RedisLockClient customClient(RedisConnectionFactory connectionFactory) {
            return new RedisLockClient(connectionFactory, "custom:");
        }
    }
}
