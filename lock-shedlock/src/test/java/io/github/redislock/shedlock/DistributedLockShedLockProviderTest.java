package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;

import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * What the provider adds to ShedLock's own tests ({@link ShedLockOnRedisTest}): the loss of a job that outlived its
 * lockAtMostFor is told, the renewed lease keeps a job's lock past it, and an extension makes it a fixed lease. Two engines on one Redis stand for two
 * instances; the store is asked who holds a key.
 */
class DistributedLockShedLockProviderTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private final List<String> losses = new CopyOnWriteArrayList<>();

    private LettuceConnectionFactory connections;

    private LockEngine first;

    private LockEngine second;

    @BeforeEach
    void start() {
        this.connections = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        this.first = new RedisLockClient(this.connections, "", Duration.ofMillis(600),
                (key, token, fence, detection) -> this.losses.add(key + " " + detection), null);
        this.second = new RedisLockClient(this.connections, "");
    }

    @AfterEach
    void stop() {
        this.first.close();
        this.second.close();
        TestConnections.destroy(this.connections);
    }

    private static LockConfiguration job(Duration lockAtMostFor) {
        return new LockConfiguration(ClockProvider.now(), "report", lockAtMostFor, Duration.ZERO);
    }

    @Test
    void aJobThatOutlivesLockAtMostForIsToldItsLockWasLost() {
        SimpleLock lock = new DistributedLockShedLockProvider(this.first).lock(job(Duration.ofMillis(300))).orElseThrow();
        Optional<SimpleLock> next = await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
            .until(() -> new DistributedLockShedLockProvider(this.second).lock(job(Duration.ofMinutes(1))),
                    Optional::isPresent);
        lock.unlock();
        assertThat(this.losses).containsExactly("report " + LockLossDetection.RELEASE);
        assertThat(this.second.inspect("report").held()).isTrue();
        next.get().unlock();
    }

    @Test
    void theRenewedLeaseKeepsAJobsLockPastItsLockAtMostFor() {
        SimpleLock lock = new DistributedLockShedLockProvider(this.first, ShedLockLease.RENEWED)
            .lock(job(Duration.ofMillis(300)))
            .orElseThrow();
        DistributedLockShedLockProvider other = new DistributedLockShedLockProvider(this.second);
        long start = System.nanoTime();
        // Three renewed leases of 600 ms, ten lockAtMostFor: the other instance finds the job's lock held throughout.
        while (System.nanoTime() - start < Duration.ofMillis(1800).toNanos()) {
            assertThat(other.lock(job(Duration.ofMinutes(1)))).isEmpty();
            // Paces the attempts (a few dozen, not thousands): the renewal thread must not be starved of a core.
            LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
        }
        lock.unlock();
        assertThat(this.losses).isEmpty();
        assertThat(this.second.inspect("report").held()).isFalse();
    }

    /**
     * {@code LockExtender} on a job whose lock is renewed: the extension is a fixed lease of its lockAtMostFor, as
     * ShedLock means it, and renewal stops. The other instance gets the lock once that lease ran out, although the
     * job's instance renews its locks every 200 ms.
     */
    @Test
    void anExtensionOfARenewedJobsLockIsAFixedLeaseOfItsLockAtMostFor() {
        SimpleLock lock = new DistributedLockShedLockProvider(this.first, ShedLockLease.RENEWED)
            .lock(job(Duration.ofMinutes(1)))
            .orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofMillis(900), Duration.ZERO).orElseThrow();
        assertThat((Long) redis.command("PTTL", "report")).isBetween(1L, 900L);
        Optional<SimpleLock> next = await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
            .until(() -> new DistributedLockShedLockProvider(this.second).lock(job(Duration.ofMinutes(1))),
                    Optional::isPresent);
        extended.unlock();
        assertThat(this.losses).containsExactly("report " + LockLossDetection.RELEASE);
        next.get().unlock();
    }

    @Test
    void aProviderNeedsALockProviderAndALease() {
        assertThatIllegalArgumentException().isThrownBy(() -> new DistributedLockShedLockProvider(this.first, null))
            .withMessageStartingWith("A ShedLock provider needs a LockProvider and a ShedLockLease, got ")
            .withMessageEndingWith(" and null");
    }
}
