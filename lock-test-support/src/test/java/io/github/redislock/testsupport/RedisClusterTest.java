package io.github.redislock.testsupport;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A cluster with replicas, failed over and resharded: each test starts its own, which is what is under test. */
@LineIndependent
class RedisClusterTest {

    @Test
    void aFailedMastersReplicaTakesOverItsSlotsWithItsKeysAndTheOldMasterRejoinsAsReplica() {
        try (RedisCluster cluster = RedisCluster.start(3, 1, 1000)) {
            int slot = cluster.slot("k");
            RedisServer master = cluster.masterOf(slot);
            master.command("SET", "k", "v");
            // Failed over only once its replica has the key: WAIT's answer is how many replicas acknowledged it (on a
            // loaded machine none may have within one WAIT, and the promoted replica then had no key).
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (!master.command("WAIT", "1", "1000").equals(1L)) {
                assertThat(System.nanoTime() - deadline).as("the replica acknowledged the write within a minute")
                    .isNegative();
            }

            RedisServer promoted = cluster.failOver(master);

            assertThat(promoted).isNotSameAs(master);
            assertThat(cluster.masterOf(slot)).isSameAs(promoted);
            assertThat(promoted.command("GET", "k")).isEqualTo("v");
            assertThat(cluster.masters()).hasSize(3).doesNotContain(master);
            assertThat((List<?>) master.command("ROLE")).first().isEqualTo("slave");
        }
    }

    @Test
    void aMigratedSlotMovesWithItsKeysAndTheirExpiry() {
        try (RedisCluster cluster = RedisCluster.start(3, 0, 5000)) {
            int slot = cluster.slot("k");
            RedisServer source = cluster.masterOf(slot);
            RedisServer target = cluster.masters().stream().filter((m) -> m != source).findFirst().orElseThrow();
            source.command("SET", "k", "v", "PX", "60000");

            cluster.migrateSlot(slot, target);

            assertThat(cluster.masterOf(slot)).isSameAs(target);
            assertThat(target.command("GET", "k")).isEqualTo("v");
            assertThat((Long) target.command("PTTL", "k")).isBetween(1L, 60_000L);
            assertThatThrownBy(() -> source.command("EXISTS", "k"))
                .hasMessage("MOVED " + slot + " " + target.host() + ":" + target.port());
        }
    }
}
