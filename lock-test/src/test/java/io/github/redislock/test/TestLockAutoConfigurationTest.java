package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.RedisLockStore;
import io.github.redislock.redlock.RedlockStore;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static io.github.redislock.test.LockAssertions.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class TestLockAutoConfigurationTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    /** Every {@link LockLostEvent} of the application context, for the tests that listen. */
    private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

    private static final ApplicationContextRunner WITHOUT_REDIS = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                    LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class))
            .withBean(Purchases.class).withPropertyValues("redis-lock.key-prefix=shop:");

    @Test
    void inProcessLocksNeedNoRedisAtAll() {
        WITHOUT_REDIS.withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class))
                .run((context) -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(RedisConnectionFactory.class)
                            .hasSingleBean(DistributedLockAdvisor.class);
                    assertThat(context.getBean(LockProvider.class)).isSameAs(context.getBean(LockEngine.class));
                    InMemoryLockStore locks = context.getBean(InMemoryLockStore.class);
                    Purchases purchases = context.getBean(Purchases.class);
                    assertThat(purchases.purchase(7)).isEqualTo("shop:sku:7:lock");
                    assertThat(purchases.wasHeldDuringPurchase()).isTrue();
                    assertThatLock(locks, "shop:sku:7:lock").isFree();
                });
    }

    @Test
    void inProcessLocksReplaceTheRedisEngineWhenAskedFor() {
        redisRunner().withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class))
                .run((context) -> {
                    assertThat(context).doesNotHaveBean(RedisLockStore.class).hasSingleBean(LockEngine.class)
                            .getBean(LockStore.class).isInstanceOf(InMemoryLockStore.class);
                });
    }

    @Test
    void inProcessLocksTakeThePlaceOfRedlockToo() {
        // Ordered before Redlock's auto-configuration by class, not left to the names (which would put it after).
        redisRunner().withConfiguration(AutoConfigurations.of(RedlockAutoConfiguration.class,
                InProcessLockAutoConfiguration.class))
            .withPropertyValues("redis-lock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2,redis://127.0.0.1:3")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedlockStore.class)
                .getBean(LockStore.class).isInstanceOf(InMemoryLockStore.class));
    }

    @Test
    void withoutTheOptInTheRedisEngineLocks() {
        redisRunner().run((context) -> assertThat(context).hasSingleBean(RedisLockStore.class)
                .doesNotHaveBean(InMemoryLockStore.class).doesNotHaveBean(LockRecorder.class));
    }

    @Test
    void inProcessLocksGiveWayToALockProviderOfTheTest() {
        WITHOUT_REDIS.withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class))
                .withBean("ownLocks", LockProvider.class, InProcessLockProvider::new)
                .run((context) -> assertThat(context).doesNotHaveBean(LockStore.class)
                    .getBean(LockProvider.class).isSameAs(context.getBean("ownLocks")));
    }

    @Test
    void theRecorderSeesTheLocksOfAnnotatedMethodsAndTheTemplateOnRedis() {
        redisRunner().withConfiguration(AutoConfigurations.of(LockRecorderAutoConfiguration.class))
                .run((context) -> {
                    assertThat(context).hasSingleBean(RedisLockStore.class);
                    LockRecorder recorder = context.getBean(LockRecorder.class);
                    context.getBean(Purchases.class).purchase(7);
                    context.getBean(DistributedLockTemplate.class).run("report", null, null, () -> {
                    });
                    LockAssertions.assertThat(recorder).ranUnder("sku:7:lock").tookExactly("sku:7:lock", "report")
                            .holdsNothing();
                    assertThat(recorder.locks().get(0).key()).isEqualTo("shop:sku:7:lock");
                    assertThatLock(context.getBean(RedisConnectionFactory.class), "shop:sku:7:lock").isFree();
                });
    }

    @Test
    void theRecorderWorksWithInProcessLocks() {
        WITHOUT_REDIS.withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class,
                LockRecorderAutoConfiguration.class)).run((context) -> {
                    context.getBean(Purchases.class).purchase(3);
                    LockAssertions.assertThat(context.getBean(LockRecorder.class)).tookExactly("sku:3:lock");
                });
    }

    @Test
    void aLockFoundLostInProcessIsPublishedWithTheEngineAsItsSource() {
        WITHOUT_REDIS.withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class))
                .withBean("lossListener", ApplicationListener.class,
                        () -> (ApplicationListener<LockLostEvent>) this.lost::add)
                .run((context) -> {
                    // A fixed lease that runs out before its work ends: lost at the release, as on Redis.
                    LockHandle late = context.getBean(DistributedLockTemplate.class)
                        .acquire(LockRequest.of("late", Duration.ZERO, Duration.ofMillis(30)));
                    InMemoryLockStore store = context.getBean(InMemoryLockStore.class);
                    await().until(() -> store.state("shop:late") == KeySlot.State.FREE);
                    late.close();
                    assertThat(this.lost).singleElement().satisfies((event) -> {
                        assertThat(event.getSource()).isSameAs(context.getBean(LockEngine.class));
                        assertThat(event.getKey()).isEqualTo("shop:late");
                        assertThat(event.getDetection()).isEqualTo(LockLossDetection.RELEASE);
                    });
                });
    }

    @Test
    void theApplicationsInstanceInfoNamesTheInProcessHolder() {
        InstanceInfo billing = new InstanceInfo("billing", "billing-7", "host-b", 7);
        WITHOUT_REDIS.withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class))
                .withBean(InstanceInfo.class, () -> billing).run((context) -> {
                    assertThat(context).hasSingleBean(InstanceInfo.class);
                    LockEngine engine = context.getBean(LockEngine.class);
                    try (LockHandle held = context.getBean(DistributedLockTemplate.class)
                        .acquire(LockRequest.of("job", Duration.ZERO, null))) {
                        assertThat(engine.inspect("job").holder()).isEqualTo(LockInspection.Holder.of(billing));
                    }
                });
    }

    private static ApplicationContextRunner redisRunner() {
        return WITHOUT_REDIS.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=" + redis.server().url(),
                        "spring.data.redis.lettuce.pool.enabled=false");
    }

    public static class Purchases {

        private volatile boolean heldDuringPurchase;

        public boolean wasHeldDuringPurchase() {
            return this.heldDuringPurchase;
        }

        @DistributedLock(key = "sku:#id:lock")
        public String purchase(long id) {
            LockHandle handle = LockContext.current().orElseThrow();
            this.heldDuringPurchase = handle.isHeld();
            return handle.key();
        }
    }
}
