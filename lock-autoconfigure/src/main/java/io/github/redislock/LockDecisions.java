package io.github.redislock;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * DEBUG lines that say what locking decided and why: a lock asked for, taken (with its fencing token and how
 * long it took), not taken within the wait time, failed, released, found lost. Switched on with the category
 * {@code io.github.redislock} at DEBUG, together with the engine's lines about waiting and hand-offs. Every line
 * is behind a level check, so that switched off they cost one check per call.
 */
final class LockDecisions {

    private static final Log logger = LogFactory.getLog(LockDecisions.class);

    private LockDecisions() {
    }

    /** Takes the lock, saying what happened when DEBUG is on. */
    static LockHandle acquire(LockProvider locks, LockRequest request) {
        if (!logger.isDebugEnabled()) {
            return locks.acquire(request);
        }
        long start = System.nanoTime();
        logger.debug("Lock " + request.keys() + ": acquiring, " + ((request.waitNanos() > 0)
                ? "waiting up to " + request.waitTime() : "single attempt") + ", lease "
                + ((request.leaseTime() != null) ? request.leaseTime() + " fixed" : "renewed"));
        try {
            LockHandle handle = locks.acquire(request);
            logger.debug("Lock " + request.keys() + ": acquired after " + millis(start) + " ms, fencing token "
                    + handle.fencingToken());
            return handle;
        }
        catch (LockNotAcquiredException ex) {
            logger.debug("Lock " + request.keys() + ": not acquired, held elsewhere for the whole wait time ("
                    + millis(start) + " ms)");
            throw ex;
        }
        catch (RuntimeException | Error ex) {
            logger.debug("Lock " + request.keys() + ": failed after " + millis(start) + " ms: " + ex);
            throw ex;
        }
    }

    /** After the release of a lock that guarded work: released, or found lost. */
    static void released(LockHandle handle) {
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + handle.key() + "': " + (handle.isLost()
                    ? "found lost (its lease ran out or the key was removed before the release)" : "released"));
        }
    }

    private static long millis(long start) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }
}
