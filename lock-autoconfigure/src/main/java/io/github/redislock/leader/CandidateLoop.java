package io.github.redislock.leader;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.leader.LeadershipRevokedEvent.Reason;

/**
 * The thread of one {@link LeaderCandidate}: stand, lead, be revoked, pause, stand again, until the candidate
 * stops. The states and their moves are the candidate's (see its Javadoc); this is only their order.
 */
final class CandidateLoop implements Runnable {

    private static final Log logger = LogFactory.getLog(CandidateLoop.class);

    private final LeaderCandidate candidate;

    CandidateLoop(LeaderCandidate candidate) {
        this.candidate = candidate;
    }

    @Override
    public void run() {
        try {
            while (true) {
                LockHandle handle = takeLock();
                if (handle == null) {
                    if (this.candidate.stopping()) {
                        return;
                    }
                    continue;
                }
                if (!this.candidate.lead(handle)) {
                    release(handle);
                    return;
                }
                Reason reason = this.candidate.awaitRevocation(handle);
                long term = handle.fencingToken();
                // Given up here (YIELDED, STOPPED): the listeners stop the leader's work before the release lets
                // anyone else be granted. LOST: another instance may lead already; what is left goes after.
                this.candidate.revoked(term, reason);
                release(handle);
                this.candidate.released();
                if (reason == Reason.STOPPED || (reason == Reason.YIELDED && !this.candidate.pause(false))) {
                    return;
                }
            }
        }
        catch (InterruptedException ex) {
            // Only stop() interrupts, and only a standing or pausing candidate: nothing is held.
        }
    }

    /** The election's lock, or {@code null}: stopping, the wait ended, or the store failed (after a pause). */
    private LockHandle takeLock() throws InterruptedException {
        LockRequest request = this.candidate.stand();
        if (request == null) {
            return null;
        }
        try {
            return this.candidate.locks().acquire(request);
        }
        catch (LockNotAcquiredException ex) {
            return null;
        }
        catch (RuntimeException ex) {
            if (!this.candidate.stopping()) {
                logger.warn("The candidate of the election '" + this.candidate.name() + "' could not stand for its "
                        + "lock; it tries again in a second", ex);
                this.candidate.pause(true);
            }
            return null;
        }
    }

    private void release(LockHandle handle) {
        try {
            handle.close();
        }
        catch (LockException ex) {
            logger.warn("The election's lock of '" + this.candidate.name() + "' could not be released; it ends "
                    + "with its lease", ex);
        }
    }
}
