package io.github.redislock.core;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;

/**
 * Releases a lock after the guarded work, the same way for every front end: the work's own outcome wins.
 * A release that fails because Redis is unreachable does not turn finished work into a failure (the key
 * expires with its lease); it is logged, or attached as suppressed to the work's own exception.
 */
public final class LockedCall {

    private static final Log logger = LogFactory.getLog(LockedCall.class);

    private LockedCall() {
    }

    /**
     * @param handle the lock to release
     * @param workFailure what the work threw, or {@code null} if it completed
     * @return false when the lock turned out lost during the work (found by renewal or by this release)
     */
    public static boolean release(GuardedLock handle, Throwable workFailure) {
        try {
            handle.close();
        }
        catch (LockException ex) {
            if (workFailure != null) {
                workFailure.addSuppressed(ex);
            }
            else {
                logger.warn("Could not release lock '" + handle.key() + "'; it expires when its lease ends", ex);
            }
        }
        return !handle.isLost();
    }
}
