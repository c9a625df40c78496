package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redlock.RedlockClient;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestConnections;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** ShedLock's provider tests on Redlock over three masters. */
class ShedLockOnRedlockTest extends ShedLockProviderSuite {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private List<RedisConnectionFactory> connections;

    @Override
    protected LockEngine newEngine(String keyPrefix) {
        this.connections = masters.connect(Duration.ofSeconds(5));
        return new RedlockClient(this.connections, keyPrefix, Duration.ofSeconds(30), LockLossListener.NONE);
    }

    /**
     * ShedLock's check with a lease Redlock can grant. Its own asks for a {@code lockAtMostFor} of 2 ms, which
     * Redlock never grants: a lock's validity is its lease less 1 % and 2 ms for the masters' clock drift, so a
     * 2 ms lock is void before it is taken (an empty result, as when another instance holds it). The same steps
     * with 100 ms: taken, run out in the store, then not extended.
     */
    @Override
    @Test
    public void shouldNotBeAbleToExtendExpiredLock() {
        Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(LOCK_NAME1, Duration.ofMillis(100), Duration.ZERO));
        assertThat(lock).isNotEmpty();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
            .until(() -> !this.engine().inspect(LOCK_NAME1).held());
        assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertUnlocked(LOCK_NAME1);
    }

    @Override
    protected void closeStore() {
        this.connections.forEach(TestConnections::destroy);
    }
}
