package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ShedLock's own provider tests (its authors' {@code shedlock-test-support}: locking, timeouts, lockAtLeastFor, a
 * fuzz test of eight threads, and extension) against {@link DistributedLockShedLockProvider} over one store, a
 * new engine per test. Whether a lock is held is asked of the store itself ({@link LockEngine#inspect}, the holder
 * view), never of the provider: a key kept for lockAtLeastFor counts as locked, as ShedLock means it.
 * <p>
 * One test runs with a longer lease than ShedLock wrote it with: {@code shouldNotBeAbleToExtendExpiredLock} asks for a
 * {@code lockAtMostFor} of 2 ms, which no store grants. A lock's validity is its lease less the clock drift
 * allowance (1 %) and 2 ms for the store's expiry, so a 2 ms lock is void before it is taken and the provider
 * answers empty, as when another instance holds it (docs/coming-from-shedlock-or-spring-integration.md says so).
 * The same steps run with {@link #EXPIRING_LEASE}: taken, run out in the store, then not extended.
 */
abstract class ShedLockProviderSuite extends AbstractExtensibleLockProviderIntegrationTest {

    /** A lease every store grants even on a loaded machine, which leaves nine tenths of it for the take. */
    private static final Duration EXPIRING_LEASE = Duration.ofMillis(250);

    private LockEngine engine;

    /** A new engine over the store under test, with a key prefix of its own. */
    protected abstract LockEngine newEngine(String keyPrefix);

    /** Closes what {@link #newEngine} opened besides the engine, after the engine. */
    protected void closeStore() {
    }

    /**
     * A new engine, warmed up as a service that has run for a while is: its connections open and its scripts loaded
     * by a lock of its own, taken and released, so that the first lock of a test costs no more than any other.
     */
    @BeforeEach
    void startEngine() {
        this.engine = newEngine("shedlock-" + UUID.randomUUID() + ":");
        this.engine.acquire(LockRequest.of("warm-up", Duration.ZERO, null)).close();
    }

    @AfterEach
    void closeEngine() {
        this.engine.close();
        closeStore();
    }

    /** The engine of the running test. */
    protected LockEngine engine() {
        return this.engine;
    }

    @Override
    protected ExtensibleLockProvider getLockProvider() {
        return new DistributedLockShedLockProvider(this.engine);
    }

    @Override
    protected void assertLocked(String lockName) {
        assertThat(this.engine.inspect(lockName).held()).as("%s held in the store", lockName).isTrue();
    }

    @Override
    protected void assertUnlocked(String lockName) {
        assertThat(this.engine.inspect(lockName).held()).as("%s held in the store", lockName).isFalse();
    }

    /** ShedLock's test of the same name with a lease of 250 ms instead of 2 ms (see the class's notes). */
    @Override
    @Test
    public void shouldNotBeAbleToExtendExpiredLock() {
        Optional<SimpleLock> lock = getLockProvider().lock(lockConfig(LOCK_NAME1, EXPIRING_LEASE, Duration.ZERO));
        assertThat(lock).isNotEmpty();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
            .until(() -> !this.engine.inspect(LOCK_NAME1).held());
        assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).isEmpty();
        assertUnlocked(LOCK_NAME1);
    }
}
