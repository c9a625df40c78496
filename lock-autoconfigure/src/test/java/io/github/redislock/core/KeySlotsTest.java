package io.github.redislock.core;

import java.util.List;

import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Checked against a real cluster-enabled redis-server's own CLUSTER KEYSLOT. */
class KeySlotsTest {

    private static final List<String> KEYS = List.of("sku:42:lock", "{sku}:42", "order:{42}:lock", "a{}b", "a}b{c",
            "{}", "}{", "x{y", "{a}{b}", "锁{键}值", "plain", "trailing}", "{{nested}}", "a{b}c}");

    @Test
    void slotMatchesRedis() {
        try (RedisServer redis = RedisServer.builder().arguments("--cluster-enabled", "yes").start()) {
            for (String key : KEYS) {
                assertThat((long) KeySlots.slot(key)).as(key).isEqualTo(redis.command("CLUSTER", "KEYSLOT", key));
            }
        }
    }

    @Test
    void fenceKeyLivesInTheLockKeysSlotWhateverBracesItHas() {
        try (RedisServer redis = RedisServer.builder().arguments("--cluster-enabled", "yes").start()) {
            for (String key : KEYS) {
                String fence = KeySlots.fenceKey(key);
                assertThat(fence).as(key).isNotEqualTo(key);
                assertThat(redis.command("CLUSTER", "KEYSLOT", fence)).as(fence)
                        .isEqualTo(redis.command("CLUSTER", "KEYSLOT", key));
            }
        }
    }

    @Test
    void fenceKeyIsReadableForOrdinaryKeys() {
        assertThat(KeySlots.fenceKey("sku:42:lock")).isEqualTo("{sku:42:lock}:fence");
        assertThat(KeySlots.fenceKey("order:{42}:lock")).isEqualTo("order:{42}:lock:fence");
    }
}
