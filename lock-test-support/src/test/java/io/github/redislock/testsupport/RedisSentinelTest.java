package io.github.redislock.testsupport;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@LineIndependent
class RedisSentinelTest {

    private static RedisSentinel sentinel;

    @BeforeAll
    static void start() {
        sentinel = RedisSentinel.start(1);
    }

    @AfterAll
    static void stop() {
        sentinel.close();
    }

    @AfterEach
    void heal() {
        sentinel.heal();
    }

    @Test
    void failoverPromotesTheReplicaWithTheMastersData() {
        RedisServer old = sentinel.master();
        old.command("SET", "k", "v");
        sentinel.awaitReplicated();
        RedisServer promoted = sentinel.failover();
        assertThat(promoted).isNotSameAs(old);
        assertThat(promoted.command("GET", "k")).isEqualTo("v");
        assertThat((String) old.command("INFO", "replication")).contains("role:slave");
    }

    @Test
    void aDetachedReplicaPromotedAfterTheMasterDiesMissesTheMastersLastWrites() {
        RedisServer master = sentinel.master();
        RedisServer replica = sentinel.replicas().get(0);
        sentinel.detach(replica);
        master.command("SET", "lost", "v");
        master.kill();
        assertThat(sentinel.failover()).isSameAs(replica);
        assertThat(replica.command("GET", "lost")).isNull();
    }
}
