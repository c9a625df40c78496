package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redis users with only the commands, keys and channels the ACL example of docs/security.md lists for one service
 * (key prefix {@code engine-test:}): confined to its own keys and channels, the service locks, hands locks on
 * at once and waits for its replica. Without any channel (what Redis 7 gives a new ACL user by default)
 * hand-off messages are refused, but locking still works, a completed hand-off is not reported as a failed
 * release, and the log says which channels to grant.
 */
@ExtendWith(OutputCaptureExtension.class)
class RestrictedRedisUserTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @AfterEach
    void dropUser() {
        redis.command("ACL", "DELUSER", "locker");
    }

    @Test
    void aServiceConfinedToItsOwnKeysAndChannelsLocksHandsOnAtOnceAndWaitsForItsReplica(CapturedOutput output)
            throws Exception {
        // The example in docs/security.md for a service with key-prefix "engine-test:".
        setUser("resetchannels", "&" + LockApplication.PREFIX + "~lock~*");
        // A second server, the class's server's replica, for this test alone.
        try (RedisServer replica = RedisServer.builder()
            .arguments("--replicaof", redis.server().host(), String.valueOf(redis.server().port()))
            .start()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> ((String) replica.command("INFO", "replication"))
                .contains("master_link_status:up"));
            String url = "spring.data.redis.url=redis://locker:secret@" + redis.server().host() + ":"
                    + redis.server().port();
            try (LockApplication holderApp = LockApplication.start(redis.server(), url,
                    "redis-lock.replicas-to-acknowledge=1");
                    LockApplication waiterApp = LockApplication.start(redis.server(), url,
                            "redis-lock.replicas-to-acknowledge=1")) {
                LockHandle holder = holderApp.template().tryAcquire("job", Duration.ZERO, null).orElseThrow();
                try (Background<Long> waiter = Background.start("waiter", () -> waiterApp.template()
                    .execute("job", Duration.ofSeconds(10), null, () -> System.nanoTime()))) {
                    waiter.awaitBlockedInside();
                    // The waiter's queue entry and its channel lie within the service's own patterns.
                    await().atMost(Duration.ofSeconds(10)).until(() -> !((List<?>) redis.command("PUBSUB", "CHANNELS",
                            LockApplication.PREFIX + "~lock~handoff:*")).isEmpty());
                    holder.close();
                    assertThat(holder.isLost()).isFalse();
                    waiter.get(Duration.ofSeconds(10));
                }
            }
        }
        assertThat(output).doesNotContain("refused");
        assertThat(redis.command("EXISTS", LockApplication.PREFIX + "job")).isEqualTo(0L);
    }

    @Test
    void aHandOffWhoseMessageIsRefusedStillReachesTheWaiterAndTheLogSaysWhatToGrant(CapturedOutput output)
            throws Exception {
        // Exactly the commands and keys docs/security.md lists, and no channel at all.
        setUser("resetchannels");
        String url = "spring.data.redis.url=redis://locker:secret@" + redis.server().host() + ":"
                + redis.server().port();
        try (LockApplication holderApp = LockApplication.start(redis.server(), url);
                LockApplication waiterApp = LockApplication.start(redis.server(), url)) {
            LockHandle holder = holderApp.template().tryAcquire("job", Duration.ZERO, null).orElseThrow();
            try (Background<Long> waiter = Background.start("waiter", () -> waiterApp.template()
                .execute("job", Duration.ofSeconds(10), null, () -> System.nanoTime()))) {
                waiter.awaitBlockedInside();
                long released = System.nanoTime();
                holder.close(); // handed on; the message is refused, which is no failure of the release
                assertThat(holder.isLost()).isFalse();
                long entered = waiter.get(Duration.ofSeconds(10));
                // Found by the waiter's own look at Redis, at least once a second.
                assertThat(Duration.ofNanos(entered - released)).isLessThan(Duration.ofSeconds(3));
            }
        }
        assertThat(output).contains("Redis refused the hand-off message")
            .contains("Grant the user the channels &" + LockApplication.PREFIX + "~lock~*");
        assertThat(redis.command("EXISTS", LockApplication.PREFIX + "job")).isEqualTo(0L);
    }

    /**
     * The ACL example of docs/security.md: the commands (with {@code +wait} for replica acknowledgement), the
     * service's key pattern, and the given channel rules.
     */
    private static void setUser(String... channels) {
        List<String> rule = new ArrayList<>(List.of("ACL", "SETUSER", "locker", "on", ">secret", "resetkeys",
                "~" + LockApplication.PREFIX + "*"));
        rule.addAll(List.of(channels));
        rule.addAll(List.of("-@all", "+hello", "+ping", "+evalsha", "+eval", "+get", "+set", "+del", "+pexpire",
                "+pttl", "+time", "+hset", "+hget", "+hdel", "+lpos", "+rpush", "+lmove", "+lrem", "+publish",
                "+subscribe", "+wait"));
        redis.command(rule.toArray(String[]::new));
    }
}
