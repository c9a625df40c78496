package io.github.redislock.storekit;

import java.time.Duration;

import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;

/**
 * What every group of checks of {@link LockStoreContract} shares: the applications of the running check, and the
 * leases and waits they use. Checks whose subject is not renewal take {@link #STEADY_LEASE}, so that no pause of
 * a loaded machine can cost a lock while a thread is kept out; the others take {@link #SHORT_LEASE}, so that a run
 * crosses many renewal rounds, and judge their outcome so that a pause past the lease is told, never hidden.
 */
public interface StoreChecks {

    /** A renewed lease no pause of a test machine outlasts: renewal is not what such a check is about. */
    Duration STEADY_LEASE = Duration.ofSeconds(60);

    /** A renewed lease short enough that a run crosses many renewal rounds (every 500 ms). */
    Duration SHORT_LEASE = Duration.ofMillis(1500);

    /** How long a thread that must be kept out tries. */
    Duration SHORT_WAIT = Duration.ofMillis(300);

    /** How long a thread that must get in may wait: a liveness bound, never reached by a working store. */
    Duration LONG_WAIT = Duration.ofSeconds(60);

    /** No wait: the key is taken now or not at all. */
    Duration NO_WAIT = Duration.ZERO;

    /** The applications of the running check. */
    Applications applications();

    /** One more application of the running check, with the given renewed lease. */
    default Application start(Duration renewedLease) {
        return applications().start(renewedLease);
    }

    /**
     * Skips a check of shared keys for a store that keeps exclusive locks only ({@link LockStore#supports}): the
     * kit holds a store to the promises it makes.
     */
    default void assumeShared(Sharing sharing) {
        org.junit.jupiter.api.Assumptions.assumeTrue(start(STEADY_LEASE).store().supports(sharing),
                () -> "the store keeps no " + sharing.describe());
    }

    /** See {@link Applications#awaitNothingLeft}. */
    default void awaitNothingLeft(String... names) {
        applications().awaitNothingLeft(names);
    }
}
