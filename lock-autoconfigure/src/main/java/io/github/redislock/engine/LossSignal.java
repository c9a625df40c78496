package io.github.redislock.engine;

import java.util.Locale;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockLossDetection;

/** Says that a held lock was lost: a WARN, and the application's {@link LockLossListener}, which may not fail us. */
final class LossSignal {

    private static final Log logger = LogFactory.getLog(LossSignal.class);

    private final LockLossListener listener;

    LossSignal(LockLossListener listener) {
        this.listener = listener;
    }

    void lost(Entry entry, LockLossDetection detection) {
        StoreLock lock = entry.lock;
        if (logger.isWarnEnabled()) {
            logger.warn("Lock '" + lock.key() + "' (fencing token " + lock.fencingToken() + ") was lost, detected at "
                    + detection.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": its lease ran out or the key "
                    + "was removed, so another holder may have run the same critical section. "
                    + ((detection == LockLossDetection.RELEASE && !entry.isRenewed())
                            ? "The work took longer than the fixed lease of " + entry.leaseMillis() + " ms." : ""));
        }
        try {
            this.listener.lockLost(lock.key(), lock.token(), lock.fencingToken(), detection);
        }
        catch (RuntimeException ex) {
            logger.warn("Lock loss listener failed for '" + lock.key() + "'", ex);
        }
    }
}
