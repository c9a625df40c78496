package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockProvider;
import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.actuate.RedisLocksEndpoint.HeldLockDescriptor;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.metrics.RedisLockMetrics;
import io.github.redislock.redis.RedisLockStore;
import io.github.redislock.redlock.RedlockStore;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One engine over the one store, whichever store the Redis auto-configurations pick (the single Redis, or Redlock
 * when its nodes are set): the engine bean and when it backs off, the one source of {@link LockLostEvent}, the
 * {@link InstanceInfo} bean in every store's registry, and the endpoint and the meters on the engine. The
 * ZooKeeper module and lock-test check the same of their stores.
 */
class LockEngineAutoConfigurationTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @RegisterExtension
    static final RedlockMasters nodes = new RedlockMasters(3);

    /** Every {@link LockLostEvent} of the application context, for the tests that listen. */
    private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

    /** The two stores this module's auto-configurations choose from, by the application's properties. */
    enum Store {

        REDIS(RedisLockStore.class), REDLOCK(RedlockStore.class);

        final Class<? extends LockStore> type;

        Store(Class<? extends LockStore> type) {
            this.type = type;
        }

        ApplicationContextRunner runner() {
            ApplicationContextRunner runner = LockContexts.runner(redis)
                .withConfiguration(AutoConfigurations.of(RedisLocksEndpointAutoConfiguration.class,
                        RedisLockMetricsAutoConfiguration.class))
                .withPropertyValues("redis-lock.key-prefix=app:", "management.endpoints.web.exposure.include=redislocks",
                        "management.endpoint.redislocks.show-keys=always");
            return (this == REDIS) ? runner : runner.withPropertyValues("redis-lock.redlock.nodes="
                    + String.join(",", nodes.all().stream().map(RedisServer::url).toList()));
        }

        /** Deletes the key wherever this store keeps it, as a failover or an eviction would. */
        void lose(String key) {
            if (this == REDIS) {
                redis.command("DEL", key);
            }
            else {
                nodes.all().forEach((node) -> node.command("DEL", key));
            }
        }

        /** The instance registry entries this store holds now. */
        int registryEntries() {
            List<RedisServer> servers = (this == REDIS) ? List.of(redis.server()) : nodes.all();
            return servers.stream().mapToInt((server) -> ((List<?>) server.command("KEYS", "app:~lock~instance:*"))
                .size()).min().orElseThrow();
        }
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void oneEngineRunsOverTheStoreThePropertiesChoose(Store store) {
        store.runner().run((context) -> {
            assertThat(context).hasSingleBean(LockStore.class).hasSingleBean(LockEngine.class);
            assertThat(context.getBean(LockStore.class)).isInstanceOf(store.type);
            assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean(LockEngine.class));
            try (LockHandle handle = template(context).tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                assertThat(handle.key()).isEqualTo("app:job");
            }
        });
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void aLockFoundLostIsPublishedOnceWithTheEngineAsItsSource(Store store) {
        store.runner()
            .withBean("lossListener", ApplicationListener.class,
                    () -> (ApplicationListener<LockLostEvent>) this.lost::add)
            .run((context) -> {
                try (LockHandle handle = template(context).tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                    store.lose("app:job");
                    assertThat(handle.verifyHeld()).isFalse();
                }
                List<LockLostEvent> events = this.lost;
                assertThat(events).hasSize(1);
                assertThat(events.get(0).getSource()).isSameAs(context.getBean(LockEngine.class));
                assertThat(events.get(0).getKey()).isEqualTo("app:job");
                assertThat(events.get(0).getDetection()).isEqualTo(LockLossDetection.COMMIT_CHECK);
            });
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void theApplicationsInstanceInfoNamesTheHolderInEveryStore(Store store) {
        store.runner().withUserConfiguration(OwnInstance.class).run((context) -> {
            assertThat(context).hasSingleBean(InstanceInfo.class);
            try (LockHandle handle = template(context).tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                LockEngine engine = context.getBean(LockEngine.class);
                // The registry entries are written on a thread of their own.
                await().atMost(Duration.ofSeconds(10)).until(() -> engine.inspect("job").holder().known());
                LockInspection.Holder holder = engine.inspect("job").holder();
                assertThat(holder.application()).isEqualTo("billing");
                assertThat(holder.instance()).isEqualTo("billing-7");
            }
        });
    }

    @Test
    void withoutAnInstanceInfoOfItsOwnTheApplicationIsNamedFromItsName() {
        Store.REDIS.runner().withPropertyValues("spring.application.name=reports").run((context) -> {
            assertThat(context).hasSingleBean(InstanceInfo.class);
            assertThat(context.getBean(InstanceInfo.class).application()).isEqualTo("reports");
        });
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void theRegistryEntriesLiveAsLongAsTheApplication(Store store) {
        ConfigurableApplicationContext[] running = new ConfigurableApplicationContext[1];
        store.runner().run((context) -> {
            running[0] = context;
            await().atMost(Duration.ofSeconds(10)).until(() -> store.registryEntries() > 0);
        });
        assertThat(running[0].isActive()).isFalse();
        assertThat(store.registryEntries()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Store.class)
    void theEndpointAndTheMetersShowTheEnginesLocks(Store store) {
        store.runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            context.getBean(RedisLockMetrics.class).bindTo(meters);
            try (LockHandle handle = template(context).tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                assertThat(context.getBean(RedisLocksEndpoint.class).locks().held())
                    .extracting(HeldLockDescriptor::key).containsExactly("app:job");
                assertThat(meters.get("redis.lock.held").gauge().value()).isEqualTo(1);
            }
        });
    }

    @Test
    void aStoreOfTheApplicationsOwnGetsTheEngineAndTheRedisStoreBacksOff() {
        Store.REDIS.runner().withUserConfiguration(OwnStore.class).run((context) -> {
            assertThat(context).hasSingleBean(LockStore.class).hasBean("ownStore").hasSingleBean(LockEngine.class);
            try (LockHandle handle = template(context).tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                assertThat(handle.key()).isEqualTo("own:job");
            }
        });
    }

    @Test
    void ofSeveralStoresOfTheApplicationsTheEngineTakesThePrimary() {
        Store.REDIS.runner().withUserConfiguration(OwnStore.class, PrimaryStore.class).run((context) -> {
            assertThat(context).hasSingleBean(LockEngine.class);
            try (LockHandle handle = template(context).tryAcquire("job", Duration.ZERO, null).orElseThrow()) {
                assertThat(handle.key()).isEqualTo("primary:job");
            }
        });
    }

    @Test
    void disabledLocksMakeNoStoreNoEngineAndNoInstance() {
        Store.REDIS.runner().withPropertyValues("redis-lock.enabled=false").run((context) -> assertThat(context)
            .hasNotFailed()
            .doesNotHaveBean(LockStore.class)
            .doesNotHaveBean(LockEngine.class)
            .doesNotHaveBean(InstanceInfo.class)
            .doesNotHaveBean(RedisLocksEndpoint.class));
    }

    private static DistributedLockTemplate template(ConfigurableApplicationContext context) {
        return context.getBean(DistributedLockTemplate.class);
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnInstance {

        @Bean
        InstanceInfo billingInstance() {
            return new InstanceInfo("billing", "billing-7", "host-b", 7);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {

        @Bean
        RedisLockStore ownStore(RedisConnectionFactory connectionFactory) {
            return new RedisLockStore(connectionFactory, "own:", null, 0, Duration.ZERO);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryStore {

        @Bean
        @Primary
        RedisLockStore primaryStore(RedisConnectionFactory connectionFactory) {
            return new RedisLockStore(connectionFactory, "primary:", null, 0, Duration.ZERO);
        }
    }
}
