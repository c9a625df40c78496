package io.github.redislock.aop;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockValues;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DistributedLockAspectTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private ApplicationContextRunner runner;

    private ApplicationContextRunner runner() {
        if (this.runner == null) {
            this.runner = LockContexts.runner(redis).withUserConfiguration(Config.class)
                    .withPropertyValues("test.wait=250ms");
        }
        return this.runner;
    }

    @Test
    void methodRunsHoldingTheLockUnderTheResolvedKey() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(inventory.purchase(42L)).isEqualTo("bought 42");
            assertThat(inventory.observed()).hasSize(1);
            Observed seen = inventory.observed().get(0);
            assertThat(seen.key()).isEqualTo("sku:42:lock");
            assertThat(seen.value()).isNotNull();
            assertThat(seen.ttl()).isBetween(29_000L, 30_000L);
            assertThat(LockValues.held(redis.command("GET", "sku:42:lock"))).isFalse();
        });
    }

    @Test
    void lockIsReleasedWhenTheMethodThrows() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThatThrownBy(() -> inventory.failing(7L)).isInstanceOf(IllegalStateException.class).hasMessage("boom");
            assertThat(inventory.observed()).extracting(Observed::value).doesNotContainNull();
            assertThat(LockValues.held(redis.command("GET", "sku:7:lock"))).isFalse();
        });
    }

    @Test
    void busyLockThrowsWithKeysAndWaitedTimeAndMethodDoesNotRun() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            redis.command("SET", "sku:1:lock", "someone-else", "PX", "30000");
            assertThatThrownBy(() -> inventory.purchase(1L)).isInstanceOfSatisfying(LockNotAcquiredException.class,
                    (ex) -> {
                        assertThat(ex.getKeys()).containsExactly("sku:1:lock");
                        // waitTime 0: a single attempt (the first call also opens the connection).
                        assertThat(ex.getWaited()).isLessThan(java.time.Duration.ofSeconds(5));
                    });
            assertThat(inventory.observed()).isEmpty();
            assertThat(redis.command("GET", "sku:1:lock")).isEqualTo("someone-else");
        });
    }

    @Test
    void waitTimeFromPlaceholderIsHonoured() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            redis.command("SET", "sku:3:lock", "someone-else", "PX", "30000");
            assertThatThrownBy(() -> inventory.patient(3L)).isInstanceOfSatisfying(LockNotAcquiredException.class,
                    (ex) -> assertThat(ex.getWaited()).isGreaterThanOrEqualTo(java.time.Duration.ofMillis(250)));
        });
    }

    @Test
    void fixedLeaseFromAnnotationBecomesTheTtl() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            inventory.shortLease(5L);
            assertThat(inventory.observed().get(0).ttl()).isBetween(4_000L, 5_000L);
        });
    }

    @Test
    void skipReturnsNullOrEmptyOptionalWithoutRunning() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            redis.command("SET", "sku:9:lock", "someone-else", "PX", "30000");
            assertThat(inventory.skipping(9L)).isNull();
            assertThat(inventory.skippingOptional(9L)).isEmpty();
            assertThat(inventory.observed()).isEmpty();
            assertThat(inventory.skippingOptional(10L)).contains("ran 10");
        });
    }

    @Test
    void fallbackMethodIsCalledInsteadOfThrowing() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            redis.command("SET", "sku:4:lock", "someone-else", "PX", "30000");
            assertThat(inventory.withFallback(4L)).isEqualTo("fallback 4");
            assertThat(inventory.withFallbackSeeingException(4L)).isEqualTo("fallback 4 after [sku:4:lock]");
            assertThat(inventory.observed()).isEmpty();
        });
    }

    @Test
    void severalKeysAreAllHeldDuringTheCall() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            inventory.transfer("b", "a");
            assertThat(inventory.observed()).extracting(Observed::key).containsExactly("sku:a:lock", "sku:b:lock");
            assertThat(inventory.observed()).extracting(Observed::value).doesNotContainNull();
            assertThat(LockValues.held(redis.command("GET", "sku:a:lock"))).as("sku:a:lock").isFalse();
assertThat(LockValues.held(redis.command("GET", "sku:b:lock"))).as("sku:b:lock").isFalse();
        });
    }

    @Test
    void severalKeysAreAllOrNothing() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            redis.command("SET", "sku:b:lock", "someone-else", "PX", "30000");
            assertThatThrownBy(() -> inventory.transfer("a", "b")).isInstanceOf(LockNotAcquiredException.class);
            assertThat(LockValues.held(redis.command("GET", "sku:a:lock"))).isFalse();
            assertThat(inventory.observed()).isEmpty();
        });
    }

    @Test
    void metaAnnotationWorks() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            inventory.viaMetaAnnotation(11L);
            assertThat(inventory.observed()).extracting(Observed::key).containsExactly("meta:11");
            assertThat(inventory.observed().get(0).ttl()).isBetween(1_000L, 2_000L);
        });
    }

    @Test
    void keyPrefixIsApplied() {
        runner().withPropertyValues("redis-lock.key-prefix=shop:").run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            inventory.purchase(42L);
            assertThat(inventory.observed()).extracting(Observed::key).containsExactly("shop:sku:42:lock");
        });
    }

    @Test
    void aKeyThatIsNotValidTextFailsBeforeRedisNamingTheExpression() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            String halfAnEmoji = "\uD83D";
            assertThatThrownBy(() -> inventory.transfer("a", halfAnEmoji)).isInstanceOf(LockException.class)
                    .hasMessageContaining("Inventory#transfer").hasMessageContaining("lone surrogate");
            assertThat(LockValues.lockKeys(redis.command("KEYS", "*"))).isEmpty();
        });
    }

    @Test
    void aWaitTooLongForNanosecondsMeansAsLongAsItTakes() {
        runner().run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Inventory.class).asLongAsItTakes(5L)).isEqualTo("waited");
        });
    }

    @Test
    void nullKeyPartFailsBeforeRunning() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThatThrownBy(() -> inventory.purchase(null)).isInstanceOf(LockException.class)
                    .hasMessageContaining("sku:#id:lock").hasMessageContaining("Inventory#purchase")
                    .hasMessageContaining("'#id' is null");
            assertThat(inventory.observed()).isEmpty();
        });
    }

    @Test
    void unannotatedMethodsAreNotLocked() {
        runner().run((context) -> {
            Inventory inventory = context.getBean(Inventory.class);
            assertThat(inventory.plain()).isEqualTo(0);
        });
    }

    record Observed(String key, String value, long ttl) {
    }

    @Target({ ElementType.METHOD })
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(key = "", leaseTime = "2s")
    @interface MetaLocked {

        @AliasFor(annotation = DistributedLock.class, attribute = "key")
        String[] value();
    }

    static class Inventory {

        // Read through methods: the bean is a class proxy, whose own fields are not the target's.
        private final List<Observed> observed = new ArrayList<>();

        private final AtomicInteger calls = new AtomicInteger();

        private final String prefix;

        Inventory(String prefix) {
            this.prefix = prefix;
        }

        private void observe(String... keys) {
            for (String key : keys) {
                String full = this.prefix + key;
                this.observed.add(new Observed(full, (String) redis.command("GET", full),
                        (Long) redis.command("PTTL", full)));
            }
        }

        @DistributedLock(key = "sku:#id:lock")
        public String purchase(Long id) {
            observe("sku:" + id + ":lock");
            return "bought " + id;
        }

        @DistributedLock(key = "sku:#{#id}:lock")
        public void failing(long id) {
            observe("sku:" + id + ":lock");
            throw new IllegalStateException("boom");
        }

        @DistributedLock(key = "sku:#id:lock", waitTime = "300000d")
        public String asLongAsItTakes(long id) {
            observe("sku:" + id + ":lock");
            return "waited";
        }

        @DistributedLock(key = "sku:#id:lock", waitTime = "${test.wait}")
        public void patient(long id) {
            observe("sku:" + id + ":lock");
        }

        @DistributedLock(key = "sku:#id:lock", leaseTime = "5s")
        public void shortLease(long id) {
            observe("sku:" + id + ":lock");
        }

        @DistributedLock(key = "sku:#id:lock", onFailure = OnLockFailure.SKIP)
        public String skipping(long id) {
            observe("sku:" + id + ":lock");
            return "ran " + id;
        }

        @DistributedLock(key = "sku:#id:lock", onFailure = OnLockFailure.SKIP)
        public Optional<String> skippingOptional(long id) {
            observe("sku:" + id + ":lock");
            return Optional.of("ran " + id);
        }

        @DistributedLock(key = "sku:#id:lock", fallbackMethod = "busy")
        public String withFallback(long id) {
            observe("sku:" + id + ":lock");
            return "ran";
        }

        public String busy(long id) {
            return "fallback " + id;
        }

        @DistributedLock(key = "sku:#id:lock", fallbackMethod = "busyWithReason")
        public String withFallbackSeeingException(long id) {
            observe("sku:" + id + ":lock");
            return "ran";
        }

        public String busyWithReason(long id, LockNotAcquiredException ex) {
            return "fallback " + id + " after " + ex.getKeys();
        }

        @DistributedLock(key = { "sku:#to:lock", "sku:#from:lock" })
        public void transfer(String from, String to) {
            observe("sku:a:lock", "sku:b:lock");
        }

        @MetaLocked("meta:#id")
        public void viaMetaAnnotation(long id) {
            observe("meta:" + id);
        }

        public List<Observed> observed() {
            return this.observed;
        }

        public int plain() {
            return this.calls.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Inventory inventory(org.springframework.core.env.Environment environment) {
            return new Inventory(environment.getProperty("redis-lock.key-prefix", ""));
        }
    }
}
