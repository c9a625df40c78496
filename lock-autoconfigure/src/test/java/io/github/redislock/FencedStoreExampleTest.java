package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The fencing example of docs/semantics-and-guarantees.md, run for real: a holder pauses past its lease (a GC
 * pause, a stalled VM), the next holder takes the lock and writes, then the first one wakes up and writes too.
 * The store rejects the stale write because it carries a smaller fencing token than one it has already
 * accepted.
 */
class FencedStoreExampleTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    /** A store that remembers the highest fencing token it has accepted, as a database row or column would. */
    static final class FencedStore {

        private long highestFence;

        private String value;

        synchronized boolean write(String value, long fence) {
            if (fence <= this.highestFence) {
                return false;
            }
            this.highestFence = fence;
            this.value = value;
            return true;
        }

        synchronized String value() {
            return this.value;
        }
    }

    @Test
    void storeRejectsTheWriteOfAHolderThatPausedPastItsLease() {
        LockContexts.runner(redis).run((context) -> {
            DistributedLockTemplate locks = context.getBean(DistributedLockTemplate.class);
            FencedStore store = new FencedStore();

            LockHandle paused = locks.tryAcquire("config", Duration.ZERO, Duration.ofMillis(100)).orElseThrow();
            // The first holder stalls; its fixed lease runs out in Redis meanwhile.
            awaitGone("config");

            Thread second = new Thread(() -> locks.run("config", Duration.ofSeconds(5), null,
                    () -> assertThat(store.write("written by B",
                            LockContext.current().orElseThrow().fencingToken())).isTrue()));
            second.start();
            join(second);

            boolean staleWriteAccepted = store.write("written by A", paused.fencingToken());
            paused.close();

            assertThat(staleWriteAccepted).isFalse();
            assertThat(store.value()).isEqualTo("written by B");
        });
    }

    private static void awaitGone(String key) {
        await("key " + key + " to go away").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> !LockValues.held(redis.command("GET", key)));
    }

    private static void join(Thread thread) {
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        assertThat(thread.isAlive()).isFalse();
    }
}
