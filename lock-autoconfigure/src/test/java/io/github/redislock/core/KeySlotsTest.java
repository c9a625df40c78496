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
    void queueKeysAndHandoffChannelsLiveInTheLockKeysSlotWhateverBracesItHas() {
        try (RedisServer redis = RedisServer.builder().arguments("--cluster-enabled", "yes").start()) {
            for (String key : KEYS) {
                Object slot = redis.command("CLUSTER", "KEYSLOT", key);
                for (String companion : List.of(KeySlots.queueKey(key), KeySlots.queueEntriesKey(key),
                        KeySlots.handoffChannelPrefix(key, true) + "client-1")) {
                    assertThat(companion).as(key).isNotEqualTo(key);
                    assertThat(redis.command("CLUSTER", "KEYSLOT", companion)).as(companion).isEqualTo(slot);
                }
            }
        }
    }

    @Test
    void queueKeysAreReadableForOrdinaryKeys() {
        assertThat(KeySlots.queueKey("sku:42:lock")).isEqualTo("{sku:42:lock}:queue");
        assertThat(KeySlots.queueEntriesKey("order:{42}:lock")).isEqualTo("order:{42}:lock:queue:entries");
        assertThat(KeySlots.handoffChannelPrefix("sku:42:lock", false)).isEqualTo("redis-lock:handoff:");
    }
}
