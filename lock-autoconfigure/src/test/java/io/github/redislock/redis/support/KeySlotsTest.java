package io.github.redislock.redis.support;

import java.util.List;

import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Checked against a real cluster-enabled redis-server's own CLUSTER KEYSLOT. */
class KeySlotsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared()
        .configured(RedisServer.builder().arguments("--cluster-enabled", "yes"));

    private static final List<String> KEYS = List.of("sku:42:lock", "{sku}:42", "order:{42}:lock", "a{}b", "a}b{c",
            "{}", "}{", "x{y", "{a}{b}", "锁{键}值", "plain", "trailing}", "{{nested}}", "a{b}c}");

    @Test
    void slotMatchesRedis() {
        for (String key : KEYS) {
            assertThat((long) KeySlots.slot(key)).as(key).isEqualTo(redis.command("CLUSTER", "KEYSLOT", key));
        }
    }

    @Test
    void companionKeysAndHandoffChannelsLiveInTheLockKeysSlotAndBeginWithItsPrefix() {
        for (String name : KEYS) {
            for (String prefix : List.of("", "app:", "{app}:")) {
                String key = prefix + name;
                Object slot = redis.command("CLUSTER", "KEYSLOT", key);
                assertThat(KeySlots.queueKeys(key)).containsExactly(KeySlots.queueKey(key),
                        KeySlots.queueEntriesKey(key));
                for (String companion : List.of(KeySlots.queueKey(key), KeySlots.queueEntriesKey(key),
                        KeySlots.handoffChannelPrefix(prefix, key, true) + "client-1")) {
                    assertThat(companion).as(key).isNotEqualTo(key).startsWith(prefix)
                        .contains(KeySlots.MARKER);
                    assertThat(companion.substring(0, companion.indexOf(KeySlots.MARKER))).as(companion)
                        .satisfies((start) -> assertThat(key).startsWith(start));
                    assertThat(redis.command("CLUSTER", "KEYSLOT", companion)).as(companion).isEqualTo(slot);
                }
            }
        }
    }

    @Test
    void companionNamesOfDifferentKeysDiffer() {
        List<String> names = new java.util.ArrayList<>();
        for (String key : KEYS) {
            names.addAll(List.of(key, KeySlots.queueKey(key), KeySlots.queueEntriesKey(key)));
        }
        assertThat(names).doesNotHaveDuplicates();
    }

    @Test
    void companionNamesAreReadableForOrdinaryKeys() {
        assertThat(KeySlots.queueKey("sku:42:lock")).matches("sku:42:lock~lock~\\{[0-9a-z]+}queue");
        assertThat(KeySlots.queueEntriesKey("order:{42}:lock")).isEqualTo("order:{42}:lock~lock~entries");
        assertThat(KeySlots.handoffChannelPrefix("app:", "sku:42:lock", false)).isEqualTo("app:~lock~handoff:");
    }
}
