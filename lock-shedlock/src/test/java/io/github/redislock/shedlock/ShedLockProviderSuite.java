package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.UUID;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ShedLock's own provider tests (its authors' {@code shedlock-test-support}: locking, timeouts, lockAtLeastFor, a
 * fuzz test of eight threads, and extension) against {@link DistributedLockShedLockProvider} over one store, a
 * new engine per test. Whether a lock is held is asked of the store itself ({@link LockEngine#inspect}, the holder
 * view), never of the provider: a key kept for lockAtLeastFor counts as locked, as ShedLock means it.
 */
abstract class ShedLockProviderSuite extends AbstractExtensibleLockProviderIntegrationTest {

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
}
