package io.github.redislock.core;

import io.github.redislock.LockHandle;

/** What the front ends need beyond {@link LockHandle}: loss state and a check against Redis. Internal API. */
public interface GuardedLock extends LockHandle {

    /** Whether this lock is known to be lost (renewal, release or a check found it no longer ours). */
    boolean isLost();

    /**
     * Asks Redis whether the lock still holds our token; marks it lost (and signals) if not.
     * @throws io.github.redislock.LockException if Redis cannot be reached
     */
    boolean verifyHeld();
}
