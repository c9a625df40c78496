package io.github.redislock.core;

import java.util.Locale;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.LockLossListener;

/** Says that a held lock was lost: a WARN, and the application's {@link LockLossListener}, which may not fail us. */
final class LossSignal {

    private static final Log logger = LogFactory.getLog(LossSignal.class);

    private final LockLossListener listener;

    LossSignal(LockLossListener listener) {
        this.listener = listener;
    }

    void lost(HeldLock lock, LockLossDetection detection) {
        if (logger.isWarnEnabled()) {
            logger.warn("Lock '" + lock.key + "' (fencing token " + lock.fence + ") was lost, detected at "
                    + detection.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": its lease ran out or the key "
                    + "was removed, so another holder may have run the same critical section. "
                    + ((detection == LockLossDetection.RELEASE && !lock.renewed)
                            ? "The work took longer than the fixed lease of " + lock.leaseMillis + " ms." : ""));
        }
        try {
            this.listener.lockLost(lock.key.name, lock.value, lock.fence, detection);
        }
        catch (RuntimeException ex) {
            logger.warn("Lock loss listener failed for '" + lock.key + "'", ex);
        }
    }
}
