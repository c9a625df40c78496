package io.github.redislock.core;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;
import io.github.redislock.LockLostException;

/**
 * Runs work under an acquired lock, the same way for every front end: the lock is visible through
 * {@code LockContext} while the work runs and released afterwards, and the work's own outcome wins. A release
 * that fails because Redis is unreachable does not turn finished work into a failure (the key expires with
 * its lease); it is logged, or attached as suppressed to the work's own exception.
 */
public final class LockedCall {

    private static final Log logger = LogFactory.getLog(LockedCall.class);

    private LockedCall() {
    }

    /** The guarded work: a method invocation, or a template action. */
    @FunctionalInterface
    public interface Work<T> {

        T run() throws Throwable;
    }

    /**
     * @param handle the lock, already acquired; released here
     * @param throwOnLoss throw {@link LockLostException} when the lock turned out lost during work that completed
     * @param what the guarded work, for the exception's message
     */
    public static <T> T run(GuardedLock handle, boolean throwOnLoss, String what, Work<T> work) throws Throwable {
        T result;
        ThreadLocks.push(handle);
        try {
            result = work.run();
        }
        catch (Throwable ex) {
            ThreadLocks.pop(handle);
            release(handle, ex);
            throw ex;
        }
        ThreadLocks.pop(handle);
        if (!release(handle, null) && throwOnLoss) {
            throw new LockLostException(handle.key(), "Lock '" + handle.key() + "' was lost while " + what
                    + " ran, so another holder may have run it at the same time");
        }
        return result;
    }

    /** Releases; returns false when the lock turned out lost during the work (by renewal or by this release). */
    private static boolean release(GuardedLock handle, Throwable workFailure) {
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
