package io.github.redislock.engine;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A take whose reply comes after the lease has run out by this JVM's clock, made late on purpose by a real Redis:
 * {@code CLIENT PAUSE ... WRITE} holds the acquisition script back once it has been sent (Redis lists its client
 * as blocked, {@code flags=b}), and lets it run only after the lease has passed. The engine must not hand that
 * lock out: it releases it and takes the key again, and the caller's section starts on a lock that is held and
 * stays held through renewal. Judged by reading Redis and by the application's loss events.
 */
class LateArrivalTest {

    private static final String KEY = "late";

    private static final String REDIS_KEY = LockApplication.PREFIX + KEY;

    private static final Duration LEASE = Duration.ofSeconds(1);

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    /** A client of this server whose last command, an acquisition script, Redis holds back (CLIENT PAUSE). */
    private static boolean anAcquisitionIsHeldBack() {
        String clients = String.valueOf(redis.command("CLIENT", "LIST"));
        return Arrays.stream(clients.split("\n"))
            .anyMatch((client) -> client.contains(" flags=b ") && client.contains(" cmd=evalsha "));
    }

    @Test
    void aLockWhoseReplyCameAfterItsLeaseRanOutIsTakenAgainInsteadOfHandedOut() throws Exception {
        // A command timeout well beyond the pause, so that the late reply is a reply, not a timeout.
        // The instance registry's entries refreshed far apart (every 200 s), so no refresh falls into the pause.
        try (LockApplication app = LockApplication.start(redis.server(), "redis-lock.lease-time=" + LEASE.toMillis()
                + "ms", "spring.data.redis.timeout=30s", "redis-lock.instance-ttl=10m")) {
            LockEngine client = app.client();
            // The connection is open and the scripts are loaded: the acquisition below is one EVALSHA.
            client.acquire(LockRequest.of("warm-up", Duration.ZERO, null)).close();
            // And the registry's start-up writes are done: on a loaded machine one came after the pause began, was
            // held back first on the shared connection, and the EVALSHA queued behind it was never the one held.
            await().atMost(Duration.ofSeconds(10)).until(() -> ((List<?>) redis.command("KEYS",
                    KeySlots.instanceKey(LockApplication.PREFIX, "*"))).size() == 2);
            redis.command("CLIENT", "PAUSE", "60000", "WRITE");
            LockHandle handle;
            try (Background<LockHandle> taking = Background.start("late-acquisition",
                    () -> client.acquire(LockRequest.of(KEY, Duration.ZERO, null)))) {
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(LateArrivalTest::anAcquisitionIsHeldBack);
                long sentBefore = System.nanoTime();
                // Not synchronisation: the time under test. The script was sent before sentBefore; it runs only
                // once the lease has run out by the local clock.
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                    .until(() -> System.nanoTime() - sentBefore > LEASE.toNanos() + LEASE.toNanos() / 10);
                redis.command("CLIENT", "UNPAUSE");
                handle = taking.get(Duration.ofSeconds(30));
            }
            try (handle) {
                assertThat(handle.isHeld()).as("held when handed out").isTrue();
                assertThat(redis.command("GET", REDIS_KEY)).isEqualTo(handle.token());
                client.renewNow();
                assertThat(handle.isHeld()).as("held after a renewal round").isTrue();
                assertThat(handle.isLost()).isFalse();
            }
            assertThat(app.lostEvents()).isEmpty();
            assertThat(redis.command("EXISTS", REDIS_KEY)).isEqualTo(0L);
        }
        finally {
            redis.command("CLIENT", "UNPAUSE");
        }
    }
}
