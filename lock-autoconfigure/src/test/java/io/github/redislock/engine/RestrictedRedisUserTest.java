package io.github.redislock.engine;

import java.time.Duration;

import io.github.redislock.LockHandle;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Redis user with only the commands the README lists and no channel (what Redis 7 gives a new ACL user by
 * default): hand-off messages are refused, but locking still works, a completed hand-off is not reported as a
 * failed release, and the log says which channels to grant.
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
    void aHandOffWhoseMessageIsRefusedStillReachesTheWaiterAndTheLogSaysWhatToGrant(CapturedOutput output)
            throws Exception {
        // Exactly the commands the README lists, and no channel at all.
        redis.command("ACL", "SETUSER", "locker", "on", ">secret", "~*", "resetchannels", "-@all", "+hello", "+ping",
                "+evalsha", "+eval", "+get", "+set", "+del", "+pexpire", "+pttl", "+time", "+hset", "+hget", "+hdel",
                "+lpos", "+rpush", "+lmove", "+lrem", "+publish", "+subscribe");
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
            .contains("Grant the user the channels &redis-lock:handoff:*");
        assertThat(redis.command("EXISTS", LockApplication.PREFIX + "job")).isEqualTo(0L);
    }
}
