package io.github.redislock.tx;

import java.util.List;

import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;

import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Guards transactions that begin under a lock: just before such a transaction commits, the locks are
 * checked (a loss already found by renewal, and, if enabled, a look at the store), and a lost lock fails the
 * commit with {@link LockLostException}, which rolls the transaction back. Without this, work done after the
 * lease ran out would commit even though another holder may have done the same work meanwhile.
 * <p>
 * Spring Boot registers {@code TransactionExecutionListener} beans with the transaction managers it
 * auto-configures; a transaction manager defined by hand needs {@code addListener(...)}.
 */
public final class LockVerifyingTransactionListener implements TransactionExecutionListener {

    private final boolean verifyInRedis;

    /** @param verifyInRedis also ask the store ({@link LockHandle#verifyHeld()}, per lock) before each commit */
    public LockVerifyingTransactionListener(boolean verifyInRedis) {
        this.verifyInRedis = verifyInRedis;
    }

    @Override
    public void afterBegin(TransactionExecution transaction, Throwable beginFailure) {
        if (beginFailure != null || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return;
        }
        List<LockHandle> locks = LockContext.all();
        if (!locks.isEmpty()) {
            TransactionSynchronizationManager.registerSynchronization(new CommitCheck(locks, this.verifyInRedis));
        }
    }

    private record CommitCheck(List<LockHandle> locks, boolean verifyInRedis) implements TransactionSynchronization {

        @Override
        public void beforeCommit(boolean readOnly) {
            for (LockHandle lock : this.locks) {
                if (lock.isLost() || (this.verifyInRedis && !lock.verifyHeld())) {
                    throw new LockLostException(lock.key(), "Lock '" + lock.key() + "' was lost before the "
                            + "transaction that began under it could commit; rolling back");
                }
            }
        }

        @Override
        public int getOrder() {
            // Check first, before other synchronizations flush work that would then be rolled back anyway.
            return HIGHEST_PRECEDENCE;
        }
    }
}
