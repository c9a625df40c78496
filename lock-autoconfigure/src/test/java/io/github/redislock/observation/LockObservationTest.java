package io.github.redislock.observation;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockValues;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.observation.LockObservationContext.Step;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the template reports to an observation registry, checked with Micrometer's test registry. */
class LockObservationTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private final TestObservationRegistry registry = TestObservationRegistry.create();

    private ApplicationContextRunner runner() {
        return LockContexts.runner(redis)
            .withPropertyValues("redis-lock.key-prefix=t:", "redis-lock.lease-time=20s")
            .withBean(ObservationRegistry.class, () -> this.registry);
    }

    @Test
    void executeIsObservedAsAcquireThenHoldWithTheReleaseInside() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            AtomicLong fence = new AtomicLong();
            AtomicReference<String> currentDuringWork = new AtomicReference<>();
            template.execute("job", Duration.ZERO, null, () -> {
                fence.set(LockContext.current().orElseThrow().fencingToken());
                Observation current = this.registry.getCurrentObservation();
                currentDuringWork.set((current != null) ? current.getContext().getName() : null);
                return null;
            });
            assertThat(currentDuringWork).hasValue("redis.lock.hold");
            assertThat(this.registry).hasNumberOfObservationsEqualTo(3)
                .hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .hasContextualNameEqualTo("lock acquire")
                .hasLowCardinalityKeyValue("outcome", "acquired")
                .hasLowCardinalityKeyValue("mode", "try")
                .hasHighCardinalityKeyValue("redis.lock.key", "job")
                .hasBeenStarted().hasBeenStopped().doesNotHaveError();
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that()
                .hasLowCardinalityKeyValue("outcome", "released")
                .hasHighCardinalityKeyValue("redis.lock.fencing-token", Long.toString(fence.get()))
                .hasBeenStopped();
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.release").that()
                .hasLowCardinalityKeyValue("outcome", "released")
                .hasParentObservationContextMatching((parent) -> "redis.lock.hold".equals(parent.getName()))
                .hasBeenStopped();
        });
    }

    @Test
    void theKeyValueOfAManyKeyCallIsCapped() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            List<String> keys = java.util.stream.IntStream.range(0, 50).mapToObj((i) -> "user:" + "x".repeat(30) + i)
                .toList();
            template.execute(LockRequest.of(keys, Duration.ZERO, null), () -> null);
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .matches((observation) -> observation.getHighCardinalityKeyValue("redis.lock.key").getValue()
                    .length() == DefaultLockObservationConvention.MAX_KEY_VALUE_LENGTH, "key value capped");
        });
    }

    @Test
    void aCallerThatMayWaitIsTaggedWait() {
        runner().run((context) -> {
            context.getBean(DistributedLockTemplate.class).run("job", Duration.ofSeconds(1), null, () -> {
            });
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .hasLowCardinalityKeyValue("mode", "wait");
        });
    }

    @Test
    void aBusyLockIsObservedAsNotAcquiredWithoutErrorAndWithoutHold() {
        runner().run((context) -> {
            redis.command("SET", "t:job", "other:1", "PX", "30000");
            Optional<LockHandle> lock = context.getBean(DistributedLockTemplate.class).tryAcquire("job", Duration.ZERO,
                    null);
            assertThat(lock).isEmpty();
            assertThat(this.registry).hasNumberOfObservationsEqualTo(1)
                .hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .hasLowCardinalityKeyValue("outcome", "not-acquired")
                .doesNotHaveError().hasBeenStopped();
        });
    }

    @Test
    void aFailedAcquireIsObservedAsError() {
        runner().run((context) -> {
            String tooLong = "k".repeat(600);
            assertThatThrownBy(() -> context.getBean(DistributedLockTemplate.class).run(tooLong, Duration.ZERO, null,
                    () -> {
                    })).isInstanceOf(LockException.class);
            assertThat(this.registry).hasNumberOfObservationsEqualTo(1)
                .hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .hasLowCardinalityKeyValue("outcome", "error")
                .assertThatError().isInstanceOf(LockException.class);
        });
    }

    @Test
    void theWorksFailureIsRecordedOnTheHold() {
        runner().run((context) -> {
            assertThatThrownBy(() -> context.getBean(DistributedLockTemplate.class).run("job", Duration.ZERO, null,
                    () -> {
                        throw new IllegalStateException("boom");
                    })).hasMessage("boom");
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that()
                .hasLowCardinalityKeyValue("outcome", "released")
                .assertThatError().hasMessage("boom");
        });
    }

    @Test
    void anAnnotatedMethodsOwnExceptionIsRecordedOnTheHold() {
        runner().withBean(FailingService.class).run((context) -> {
            assertThatThrownBy(() -> context.getBean(FailingService.class).fail()).isInstanceOf(IllegalStateException.class)
                .hasMessage("boom");
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that()
                .assertThatError().isInstanceOf(IllegalStateException.class).hasMessage("boom");
        });
    }

    @Test
    void aLockFoundGoneAtReleaseIsObservedAsLost() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            LockHandle handle = template.acquire(LockRequest.of("job", Duration.ZERO, Duration.ofSeconds(10)));
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that().isNotStopped();
            redis.command("DEL", "t:job");
            handle.close();
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that()
                .hasLowCardinalityKeyValue("outcome", "lost").hasBeenStopped();
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.release").that()
                .hasLowCardinalityKeyValue("outcome", "lost");
        });
    }

    @Test
    void asynchronousWorkIsHeldUntilItsStageCompletes() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> done = template
                .executeAsync(LockRequest.of("job", Duration.ZERO, null), () -> work);
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that().isNotStopped();
            assertThat(this.registry.getCurrentObservation()).isNull();
            work.complete("ok");
            assertThat(done.join()).isEqualTo("ok");
            assertThat(LockValues.held(redis.command("GET", "t:job"))).isFalse();
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that()
                .hasLowCardinalityKeyValue("outcome", "released").hasBeenStopped();
        });
    }

    @Test
    void aConventionBeanReplacesTheDefaultForTheStepsItSupports() {
        runner().withBean(LockObservationConvention.class, () -> new DefaultLockObservationConvention(Step.ACQUIRE) {
            @Override
            public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and(KeyValue.of("team", "payments"));
            }
        }).run((context) -> {
            context.getBean(DistributedLockTemplate.class).run("job", Duration.ZERO, null, () -> {
            });
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.acquire").that()
                .hasLowCardinalityKeyValue("team", "payments");
            assertThat(this.registry).hasObservationWithNameEqualTo("redis.lock.hold").that()
                .doesNotHaveLowCardinalityKeyValueWithKey("team");
        });
    }

    @Test
    void withoutARegistryBeanNothingIsObserved() {
        LockContexts.runner(redis).run((context) -> {
            context.getBean(DistributedLockTemplate.class).run("job", Duration.ZERO, null, () -> {
            });
            assertThat(context).doesNotHaveBean(ObservationRegistry.class);
            assertThat(context.getBean(DistributedLockTemplate.class)).extracting("observations").isNull();
        });
    }

    public static class FailingService {

        @DistributedLock(key = "job")
        public void fail() {
            throw new IllegalStateException("boom");
        }
    }
}
