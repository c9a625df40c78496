package io.github.redislock.zookeeper;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZnodeNamesTest {

    private static final List<String> NAMES = List.of("sku:1", "sku/1", "sku%2F1", "sku%252F1", "a b", "a+b",
            "a%20b", ".", "..", "...", "%2E", "%2E%2E", "zookeeper", "übung", "ü", "u\u0308", "日本語:鍵", "🔒",
            "emoji 🔒/x", "tab\there", "nul\u0000char", "line\nfeed", "\u007f", "\uffff", "a.b.c", "-_.:",
            "/", "//", "/leading", "trailing/", "%", "%%", "%ZZ", "a".repeat(512));

    @Test
    void differentNamesGetDifferentNodes() {
        Map<String, String> seen = new HashMap<>();
        for (String name : NAMES) {
            String node = ZnodeNames.encode(name);
            assertThat(seen.put(node, name)).as("node %s of %s", node, name).isNull();
        }
        assertThat(seen).hasSize(NAMES.size());
    }

    @Test
    void noNameGetsTheInstanceRegistrysNode() {
        // '~' is always percent-encoded: no lock name's node can be the registry's.
        for (String name : List.of(InstanceNodes.NODE, ZnodeNames.decode(InstanceNodes.NODE), "~", "%7Einstances")) {
            assertThat(ZnodeNames.encode(name)).doesNotContain("~").isNotEqualTo(InstanceNodes.NODE);
        }
        for (String name : NAMES) {
            assertThat(ZnodeNames.encode(name)).doesNotContain("~");
        }
    }

    @Test
    void decodingGivesTheNameBack() {
        for (String name : NAMES) {
            assertThat(ZnodeNames.decode(ZnodeNames.encode(name))).isEqualTo(name);
        }
    }

    @Test
    void everyNodeIsAValidZooKeeperPathSegment() {
        for (String name : NAMES) {
            String node = ZnodeNames.encode(name);
            PathUtils.validatePath("/redis-lock/" + node);
            PathUtils.validatePath("/redis-lock/" + node + "/_c_0-lock-0000000001");
            assertThat(node).doesNotContain("/").isNotIn(".", "..").matches("[A-Za-z0-9%._:-]+");
        }
    }

    @Test
    void readableNamesStayReadable() {
        assertThat(ZnodeNames.encode("order:42.pay-now_1")).isEqualTo("order:42.pay-now_1");
        assertThat(ZnodeNames.encode("sku/1 x")).isEqualTo("sku%2F1%20x");
        assertThat(ZnodeNames.encode("..")).isEqualTo("%2E%2E");
        assertThat(ZnodeNames.encode("ü")).isEqualTo("%C3%BC");
    }

    @Test
    void namesNoEncodingGivesBackAreRefused() {
        assertThatThrownBy(() -> ZnodeNames.encode("")).isInstanceOf(LockException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> ZnodeNames.encode("half \ud800 surrogate")).isInstanceOf(LockException.class)
            .hasMessageContaining("unpaired surrogate");
        assertThatThrownBy(() -> ZnodeNames.encode("a".repeat(513))).isInstanceOf(LockException.class)
            .hasMessageContaining("longer than 512 bytes");
    }
}
