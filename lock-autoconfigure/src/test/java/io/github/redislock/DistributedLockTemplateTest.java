package io.github.redislock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DistributedLockTemplateTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private ApplicationContextRunner runner() {
        return LockContexts.runner(redis).withPropertyValues("redis-lock.key-prefix=t:", "redis-lock.lease-time=20s");
    }

    @Test
    void executeRunsUnderTheLockAndReturnsTheResult() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            String seen = template.execute("job", null, null, () -> (String) redis.command("GET", "t:job"));
            assertThat(seen).isNotNull();
            assertThat(LockValues.held(redis.command("GET", "t:job"))).isFalse();
        });
    }

    @Test
    void assertHeldPassesUnderTheLockAndFailsOutsideItOrOnceItIsLost() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThat(template.execute("job", null, null, () -> LockContext.assertHeld().key())).isEqualTo("t:job");
            assertThatThrownBy(LockContext::assertHeld).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Not running under a distributed lock");
            template.run("job", null, null, () -> {
                redis.command("DEL", "t:job");
                assertThat(LockContext.current().orElseThrow().verifyHeld()).isFalse();
                assertThatThrownBy(LockContext::assertHeld).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("'t:job'").hasMessageContaining("it was lost");
            });
        });
    }

    @Test
    void theTemplateTakesHoldAtLeastThroughItsRequest() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            template.execute(LockRequest.of("job", Duration.ZERO, null).holdAtLeast(Duration.ofSeconds(5)), () -> 1);
            assertThat((String) redis.command("GET", "t:job")).startsWith("~kept:");
            assertThat((Long) redis.command("PTTL", "t:job")).isBetween(1L, 5_000L);
        });
    }

    @Test
    void nullDurationsMeanConfiguredDefaults() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            long ttl = template.execute("job", null, null, () -> (Long) redis.command("PTTL", "t:job"));
            assertThat(ttl).isBetween(19_000L, 20_000L);
            long explicit = template.execute("job", null, Duration.ofSeconds(3),
                    () -> (Long) redis.command("PTTL", "t:job"));
            assertThat(explicit).isBetween(2_000L, 3_000L);
        });
    }

    @Test
    void executeThrowsWhenBusyAndDoesNotRun() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            redis.command("SET", "t:job", "other", "PX", "30000");
            AtomicBoolean ran = new AtomicBoolean();
            assertThatThrownBy(() -> template.run("job", Duration.ZERO, null, () -> ran.set(true)))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class,
                            (ex) -> assertThat(ex.getKeys()).containsExactly("t:job"));
            assertThat(ran).isFalse();
        });
    }

    @Test
    void actionExceptionPropagatesAndLockIsReleased() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThatThrownBy(() -> template.run("job", null, null, () -> {
                throw new IllegalStateException("boom");
            })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(LockValues.held(redis.command("GET", "t:job"))).isFalse();
        });
    }

    @Test
    void tryAcquireHandsOutAHandleToClose() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            Optional<LockHandle> lock = template.tryAcquire("job", null, null);
            assertThat(lock).isPresent();
            try (LockHandle handle = lock.get()) {
                assertThat(handle.key()).isEqualTo("t:job");
                assertThat(redis.command("GET", "t:job")).isEqualTo(handle.token());
                assertThat(CompletableFuture.supplyAsync(() -> template.tryAcquire("job", Duration.ZERO, null),
                        (task) -> new Thread(task).start()).get(30, TimeUnit.SECONDS)).isEmpty();
            }
            assertThat(LockValues.held(redis.command("GET", "t:job"))).isFalse();
        });
    }

    @Test
    void invalidArgumentsAreRejected() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThatIllegalArgumentException().isThrownBy(() -> template.tryAcquire("job", Duration.ofSeconds(-1), null));
            assertThatIllegalArgumentException().isThrownBy(() -> template.tryAcquire("job", null, Duration.ZERO));
            assertThatThrownBy(() -> template.tryAcquire("", null, null)).isInstanceOf(LockException.class);
        });
    }

    @Test
    void aMissingActionIsRejectedBeforeAnythingIsLocked() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThatIllegalArgumentException().isThrownBy(() -> template.execute("job", null, null, null));
            assertThatIllegalArgumentException().isThrownBy(() -> template.run("job", null, null, null));
            assertThat(redis.command("EXISTS", "t:job")).isEqualTo(0L);
        });
    }

    @Test
    void waitTimesTooLongForNanosecondsMeanAsLongAsItTakes() {
        runner().withPropertyValues("redis-lock.wait-time=300000d").run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThat(template.execute("job", Duration.ofMillis(Long.MAX_VALUE), null, () -> "ran")).isEqualTo("ran");
            assertThat(template.execute("job", null, null, () -> "ran")).isEqualTo("ran");
            assertThat(LockRequest.of("job", Duration.ofDays(300_000), null).waitNanos()).isEqualTo(Long.MAX_VALUE);
        });
    }

    @Test
    void aCommandTimeoutOfZeroMeansNoneAsForSpringDataRedis() {
        runner().withPropertyValues("spring.data.redis.timeout=0").run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            assertThat(template.execute("job", null, null, () -> redis.command("EXISTS", "t:job"))).isEqualTo(1L);
            assertThat(redis.command("EXISTS", "t:job")).isEqualTo(0L);
        });
    }

    @Test
    void aCheckedExceptionThrownThroughTheSupplierStillReleasesAndArrivesUnchanged() {
        runner().run((context) -> {
            DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
            Exception checked = new Exception("checked, thrown sneakily as Kotlin or Lombok do");
            assertThatThrownBy(() -> template.execute("job", null, null, () -> sneakyThrow(checked))).isSameAs(checked);
            assertThat(redis.command("EXISTS", "t:job")).isEqualTo(0L);
            assertThat(LockContext.current()).isEmpty();
        });
    }

    @SuppressWarnings("unchecked")
    private static <T, E extends Throwable> T sneakyThrow(Throwable ex) throws E {
        throw (E) ex;
    }
}
