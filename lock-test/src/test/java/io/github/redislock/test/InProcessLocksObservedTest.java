package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockRequest;
import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.metrics.RedisLockMetrics;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * In-process locks in an application with Actuator and Micrometer: the endpoint, the meters, the loss events and
 * the observations come from the same engine as in production.
 */
class InProcessLocksObservedTest {

    private final TestObservationRegistry observations = TestObservationRegistry.create();

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private final List<LockLostEvent> lost = new CopyOnWriteArrayList<>();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                LockEngineAutoConfiguration.class, InProcessLockAutoConfiguration.class,
                RedisLocksEndpointAutoConfiguration.class,
                RedisLockMetricsAutoConfiguration.class))
        .withBean(ObservationRegistry.class, () -> this.observations)
        .withBean(MeterRegistry.class, () -> this.meters)
        .withBean("lossListener", ApplicationListener.class,
                () -> (ApplicationListener<LockLostEvent>) this.lost::add)
        .withPropertyValues("redis-lock.key-prefix=shop:", "spring.application.name=orders",
                "management.endpoints.web.exposure.include=redislocks",
                "management.endpoint.redislocks.show-keys=always");

    @Test
    void acquisitionsAreTaggedWithHowTheyShareTheirKeys() {
        this.runner.run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            template.execute(LockRequest.of("doc:1", Duration.ZERO, null).mode(io.github.redislock.LockMode.READ),
                    () -> null);
            template.execute(LockRequest.of("partner:api", Duration.ZERO, null).permits(4), () -> null);
            template.execute(LockRequest.of("sku:1", Duration.ZERO, null), () -> null);
            // Meters take the observations' low-cardinality key values as tags.
            for (String sharing : List.of("read", "semaphore", "write")) {
                assertThat(this.observations).hasAnObservation((observation) -> observation
                    .hasNameEqualTo("redis.lock.acquire").hasLowCardinalityKeyValue("sharing", sharing)
                    .hasLowCardinalityKeyValue("outcome", "acquired"));
                assertThat(this.observations).hasAnObservation((observation) -> observation
                    .hasNameEqualTo("redis.lock.hold").hasLowCardinalityKeyValue("sharing", sharing));
                assertThat(this.observations).hasAnObservation((observation) -> observation
                    .hasNameEqualTo("redis.lock.release").hasLowCardinalityKeyValue("sharing", sharing));
            }
        });
    }

    @Test
    void theEndpointListsTheHeldLockAndNamesThisInstanceInTheHolderView() {
        this.runner.run((context) -> {
            RedisLocksEndpoint endpoint = context.getBean(RedisLocksEndpoint.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            try (LockHandle held = template.acquire(LockRequest.of("sku:7", Duration.ZERO, null))) {
                assertThat(endpoint.locks().held()).singleElement().satisfies((lock) -> {
                    assertThat(lock.key()).isEqualTo("shop:sku:7");
                    assertThat(lock.fencingToken()).isEqualTo(held.fencingToken());
                    assertThat(lock.renewed()).isTrue();
                });
                RedisLocksEndpoint.LockViewDescriptor view = endpoint.lock("sku:7");
                assertThat(view.held()).isTrue();
                assertThat(view.holder().application()).isEqualTo("orders");
                assertThat(view.fencingToken()).isEqualTo(held.fencingToken());
            }
            assertThat(endpoint.locks().held()).isEmpty();
            assertThat(endpoint.lock("sku:7").held()).isFalse();
        });
    }

    @Test
    void theMetersCountHeldKeysAndLossesAndTheTemplateIsObserved() {
        this.runner.run((context) -> {
            context.getBean(RedisLockMetrics.class).bindTo(this.meters);
            InMemoryLockStore locks = context.getBean(InMemoryLockStore.class);
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            template.run("report", Duration.ZERO, null,
                    () -> assertThat(this.meters.get("redis.lock.held").gauge().value()).isEqualTo(1));
            assertThat(this.meters.get("redis.lock.held").gauge().value()).isZero();
            assertThat(this.observations).hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .hasLowCardinalityKeyValue("outcome", "acquired")
                .hasHighCardinalityKeyValue("redis.lock.key", "report");

            // A fixed lease that runs out before its work ends: lost at the release, as on Redis.
            LockHandle late = template.acquire(LockRequest.of("late", Duration.ZERO, Duration.ofMillis(30)));
            await().until(() -> locks.state("shop:late") == KeySlot.State.FREE);
            late.close();
            assertThat(this.lost).singleElement().satisfies((event) -> {
                assertThat(event.getKey()).isEqualTo("shop:late");
                assertThat(event.getDetection()).isEqualTo(LockLossDetection.RELEASE);
                assertThat(event.getFencingToken()).isEqualTo(late.fencingToken());
            });
            assertThat(this.meters.get("redis.lock.lost").tag("detection", "release").counter().count())
                .isEqualTo(1);
        });
    }
}
