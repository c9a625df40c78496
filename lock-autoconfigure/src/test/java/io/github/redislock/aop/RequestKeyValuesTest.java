package io.github.redislock.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import io.github.redislock.LockContext;
import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockValues;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Key values chosen by a caller (request parameters): they cannot add a separator, pick a cluster slot, name a
 * companion key or expand into more keys than the configured maximum.
 */
class RequestKeyValuesTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private ApplicationContextRunner runner() {
        return LockContexts.runner(redis).withUserConfiguration(Config.class);
    }

    @Test
    void differentValuesNeverMakeTheSameKey() {
        runner().run((context) -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.pair("1:2", "3")).isNotEqualTo(orders.pair("1", "2:3"));
            assertThat(orders.pair("1:2", "3")).isEqualTo("pair:1%3A2:3");
        });
    }

    @Test
    void aValueCannotPickTheClusterSlotOrNameAnotherKeysCompanion() {
        runner().run((context) -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.order("t1", "{victim}")).isEqualTo("{tenant:t1}:order:%7Bvictim%7D");
            assertThat(orders.order("t1", "42~lock~entries")).isEqualTo("{tenant:t1}:order:42%7Elock%7Eentries");
            assertThat(orders.order("t1", "42:queue")).isEqualTo("{tenant:t1}:order:42%3Aqueue");
        });
    }

    @Test
    void aLineBreakInAValueNeverReachesTheKey() {
        runner().run((context) -> assertThat(context.getBean(Orders.class).order("t1", "42\nINFO forged"))
            .isEqualTo("{tenant:t1}:order:42%0AINFO forged"));
    }

    @Test
    void aCollectionOfMoreKeysThanTheMaximumFailsBeforeAnyIsTaken() {
        runner().withPropertyValues("redis-lock.max-keys-per-call=100").run((context) -> {
            Orders orders = context.getBean(Orders.class);
            assertThat(orders.reserve(ids(100))).isEqualTo(100);
            assertThatThrownBy(() -> orders.reserve(ids(101))).isInstanceOf(LockException.class)
                .hasMessageContaining("more than 100 keys (redis-lock.max-keys-per-call)");
            assertThat(heldInRedis()).isZero();
        });
    }

    @Test
    void twoLargeCollectionsFailBeforeTheirCombinationsAreBuilt() {
        runner().run((context) -> {
            Orders orders = context.getBean(Orders.class);
            // 3,000 x 3,000 would be 9 million keys: refused once the second part shows more than 100 / 3,000.
            assertThatThrownBy(() -> orders.grid(ids(3_000), ids(3_000))).isInstanceOf(LockException.class)
                .hasMessageContaining("more than 100 keys");
            assertThatThrownBy(() -> orders.grid(ids(10), ids(11))).isInstanceOf(LockException.class);
            assertThat(orders.grid(ids(10), ids(10))).isEqualTo(100);
        });
    }

    @Test
    void aByteOrCharArrayIsRefusedNotTakenAsOneKeyPerElement() {
        runner().run((context) -> {
            Orders orders = context.getBean(Orders.class);
            assertThatThrownBy(() -> orders.bytes(new byte[] { 1, 2, 3 })).isInstanceOf(LockException.class)
                .hasMessageContaining("byte[]");
            assertThatThrownBy(() -> orders.chars("abc".toCharArray())).isInstanceOf(LockException.class)
                .hasMessageContaining("char[]");
            assertThat(heldInRedis()).isZero();
        });
    }

    @Test
    void valuesNotSeparatedByAColonFailAtStartUp() {
        runner().withUserConfiguration(Ambiguous.Config.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("not separated by ':'"));
    }

    private static List<String> ids(int count) {
        return IntStream.range(0, count).mapToObj(Integer::toString).toList();
    }

    /**
     * How many keys Redis holds: the locks of the call (nobody waits, so there are no queues), leaving out the
     * application's instance registry entries.
     */
    private static long heldInRedis() {
        return LockValues.lockKeys(redis.command("KEYS", "*")).size();
    }

    private static List<String> heldKeys() {
        List<String> keys = new ArrayList<>();
        for (LockHandle handle : LockContext.all()) {
            keys.add(handle.key());
        }
        return keys;
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Orders orders() {
            return new Orders();
        }
    }

    static class Orders {

        @DistributedLock(key = "pair:#a:#b")
        public String pair(String a, String b) {
            return heldKeys().get(0);
        }

        @DistributedLock(key = "{tenant:#tenant}:order:#id")
        public String order(String tenant, String id) {
            return heldKeys().get(0);
        }

        @DistributedLock(key = "sku:#skuIds")
        public long reserve(List<String> skuIds) {
            return heldInRedis();
        }

        @DistributedLock(key = "cell:#rows:#columns")
        public long grid(List<String> rows, List<String> columns) {
            return heldInRedis();
        }

        @DistributedLock(key = "blob:#data")
        public void bytes(byte[] data) {
        }

        @DistributedLock(key = "text:#data")
        public void chars(char[] data) {
        }
    }

    static class Ambiguous {

        @DistributedLock(key = "pair:#a-#b")
        public void pair(String a, String b) {
        }

        @Configuration(proxyBeanMethods = false)
        static class Config {

            @Bean
            Ambiguous ambiguous() {
                return new Ambiguous();
            }
        }
    }
}
