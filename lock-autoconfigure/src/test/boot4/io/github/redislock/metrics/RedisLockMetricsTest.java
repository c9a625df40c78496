package io.github.redislock.metrics;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.support.LockContexts;
import io.github.redislock.support.RenewalFaults;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TaskThreads;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The meters an application with Spring Boot's Micrometer support gets: from the template's observations
 * (through Boot's meter handler) and from the engine, read from Boot's simple registry.
 */
class RedisLockMetricsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static ApplicationContextRunner runner(RedisServer server) {
        return LockContexts.runner(server)
            .withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
                    MetricsAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, RedisLockMetricsAutoConfiguration.class))
            .withPropertyValues("redis-lock.key-prefix=t:", "redis-lock.lease-time=20s",
                    "management.metrics.use-global-registry=false");
    }

    @Test
    void acquisitionsAreCountedByOutcomeAndHoldsTimedAndGauged() {
        runner(redis.server()).run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            AtomicReference<Double> heldDuringWork = new AtomicReference<>();
            AtomicReference<Long> activeHoldsDuringWork = new AtomicReference<>();
            template.run("job", Duration.ZERO, null, () -> {
                heldDuringWork.set(meters.get("redis.lock.held").gauge().value());
                activeHoldsDuringWork.set((long) meters.get("redis.lock.hold.active").longTaskTimer().activeTasks());
            });
            template.run("job", Duration.ZERO, null, () -> {
            });
            redis.command("SET", "t:job", "other:1", "PX", "30000");
            assertThat(template.tryAcquire("job", Duration.ZERO, null)).isEmpty();

            assertThat(heldDuringWork).hasValue(1.0);
            assertThat(activeHoldsDuringWork).hasValue(1L);
            assertThat(meters.get("redis.lock.acquire").tags("outcome", "acquired", "mode", "try").timer().count())
                .isEqualTo(2);
            assertThat(meters.get("redis.lock.acquire").tags("outcome", "not-acquired").timer().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.hold").tags("outcome", "released").timer().count()).isEqualTo(2);
            assertThat(meters.get("redis.lock.release").tags("outcome", "released").timer().count()).isEqualTo(2);
            assertThat(meters.get("redis.lock.held").gauge().value()).isZero();
            // The key is a span attribute only: no meter is tagged with it.
            assertThat(meters.getMeters()).allSatisfy((meter) -> assertThat(meter.getId().getTag("redis.lock.key"))
                .isNull());
        });
    }

    @Test
    void observationsCanBeSwitchedOffByNameAndTheEngineMetersStay() {
        runner(redis.server()).withPropertyValues("management.observations.enable.redis.lock=false").run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            context.getBean(DistributedLockTemplate.class).run("job", Duration.ZERO, null, () -> {
            });
            assertThat(meters.find("redis.lock.acquire").timer()).isNull();
            assertThat(meters.find("redis.lock.hold").timer()).isNull();
            assertThat(meters.find("redis.lock.held").gauge()).isNotNull();
        });
    }

    @Test
    void waitingThreadsAreGauged() {
        runner(redis.server()).run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            redis.command("SET", "t:job", "other:1", "PX", "30000");
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> context
                .getBean(DistributedLockTemplate.class).run("job", Duration.ofSeconds(20), null, () -> {
                }), TaskThreads.own());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(meters.get("redis.lock.waiting").gauge().value()).isEqualTo(1.0);
                assertThat(meters.get("redis.lock.acquire.active").longTaskTimer().activeTasks()).isEqualTo(1);
            });
            redis.command("DEL", "t:job");
            waiter.get(10, TimeUnit.SECONDS);
            assertThat(meters.get("redis.lock.waiting").gauge().value()).isZero();
            assertThat(meters.get("redis.lock.acquire").tags("outcome", "acquired", "mode", "wait").timer().count())
                .isEqualTo(1);
        });
    }

    @Test
    void lostLocksAreCountedByHowTheyWereDetected() {
        runner(redis.server()).run((context) -> {
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThat(meters.get("redis.lock.lost").tag("detection", "renewal").counter().count()).isZero();

            LockHandle renewed = template.acquire(LockRequest.of("renewed", Duration.ZERO, null));
            redis.command("DEL", "t:renewed");
            context.getBean(LockEngine.class).renewNow();
            renewed.close();

            LockHandle fixed = template.acquire(LockRequest.of("fixed", Duration.ZERO, Duration.ofSeconds(10)));
            redis.command("DEL", "t:fixed");
            fixed.close();

            LockHandle checked = template.acquire(LockRequest.of("checked", Duration.ZERO, Duration.ofSeconds(10)));
            redis.command("DEL", "t:checked");
            assertThat(checked.verifyHeld()).isFalse();
            checked.close();

            assertThat(meters.get("redis.lock.lost").tag("detection", "renewal").counter().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.lost").tag("detection", "release").counter().count()).isEqualTo(1);
            assertThat(meters.get("redis.lock.lost").tag("detection", "commit-check").counter().count())
                .isEqualTo(1);
            assertThat(meters.get("redis.lock.hold").tags("outcome", "lost").timer().count()).isEqualTo(3);
        });
    }

    @Test
    void failedRenewalRoundsAreCounted() {
        // A server of its own: failOneRound freezes it, which would stall the class's shared one for the other tests.
        try (RedisServer own = RedisServer.start()) {
            runner(own).withPropertyValues("spring.data.redis.timeout=300ms").run((context) -> {
                MeterRegistry meters = context.getBean(MeterRegistry.class);
                LockEngine client = context.getBean(LockEngine.class);
                LockHandle handle = context.getBean(DistributedLockTemplate.class)
                    .acquire(LockRequest.of("job", Duration.ZERO, null));
                RenewalFaults.failOneRound(own, client);
                assertThat(meters.get("redis.lock.renewal.failures").counter().count()).isEqualTo(1);
                client.renewNow();
                assertThat(meters.get("redis.lock.renewal.failures").counter().count()).isEqualTo(1);
                handle.close();
            });
        }
    }

    @Test
    void aLockTakenOverFromAHandOffIsCountedByTheApplicationThatTookIt() {
        runner(redis.server()).run((first) -> runner(redis.server()).run((second) -> {
            LockHandle held = first.getBean(DistributedLockTemplate.class)
                .acquire(LockRequest.of("job", Duration.ZERO, null));
            CountDownLatch ran = new CountDownLatch(1);
            Thread waiter = new Thread(() -> second.getBean(DistributedLockTemplate.class)
                .run("job", Duration.ofSeconds(20), null, ran::countDown), "second-app-waiter");
            waiter.setDaemon(true);
            waiter.start();
            // Parked for 300 ms without a break: its first attempt found the key taken and queued the application.
            await().atMost(Duration.ofSeconds(10)).during(Duration.ofMillis(300)).pollInterval(Duration.ofMillis(10))
                .until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
            held.close();
            assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(second.getBean(MeterRegistry.class).get("redis.lock.handoffs").tag("via", "redis").counter()
                .count()).isEqualTo(1);
            assertThat(first.getBean(MeterRegistry.class).get("redis.lock.handoffs").tag("via", "redis").counter()
                .count()).isZero();
        }));
    }

    @Test
    void withoutAMeterRegistryThereAreNoEngineMeters() {
        LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(RedisLockMetricsAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockMetrics.class));
    }

    @Test
    void withoutMicrometerOnTheClassPathTheApplicationStillStarts() {
        LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(RedisLockMetricsAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockMetrics.class));
    }

    @Test
    void anotherLockProviderHasNoEngineMeters() {
        runner(redis.server()).withBean(LockProvider.class, () -> (request) -> {
            throw new UnsupportedOperationException();
        }).run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockMetrics.class)
            .hasSingleBean(MeterRegistry.class));
    }

    @Test
    void withAMeterRegistryTheEngineMetersAreBound() {
        runner(redis.server()).run((context) -> {
            assertThat(context).hasSingleBean(RedisLockMetrics.class);
            assertThat(context.getBean(MeterRegistry.class).find("redis.lock.held").gauge()).isNotNull();
        });
    }
}
