package io.github.redislock.leader;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.leader.LeadershipRevokedEvent.Reason;

/**
 * The thread of one {@link LeaderCandidate}: stand, lead, be revoked, pause, stand again, until the candidate
 * stops. The states and their moves are {@link CandidateState}'s (the table is in the candidate's Javadoc); this is
 * only their order, and what is sent and published between them.
 */
final class CandidateLoop implements Runnable {

    private static final Log logger = LogFactory.getLog(CandidateLoop.class);

    /** How long after a store failure the candidate stands again. */
    private static final long RETRY_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LeaderCandidate candidate;

    private final CandidateState state;

    CandidateLoop(LeaderCandidate candidate, CandidateState state) {
        this.candidate = candidate;
        this.state = state;
    }

    @Override
    public void run() {
        try {
            while (true) {
                LockHandle handle = takeLock();
                if (handle == null) {
                    if (this.state.stopping()) {
                        return;
                    }
                    continue;
                }
                if (!this.state.lead(handle)) {
                    release(handle);
                    return;
                }
                this.candidate.publish(new LeadershipGrantedEvent(this.candidate, this.candidate.name(),
                        handle.fencingToken()));
                Reason reason = this.state.awaitRevocation(handle);
                // Given up here (YIELDED, STOPPED): the listeners stop the leader's work before the release lets
                // anyone else be granted. LOST: another instance may lead already; what is left goes after.
                this.candidate.publish(new LeadershipRevokedEvent(this.candidate, this.candidate.name(),
                        handle.fencingToken(), reason));
                release(handle);
                this.state.released();
                if (reason == Reason.STOPPED
                        || (reason == Reason.YIELDED && !this.state.pause(this.candidate.yieldPauseNanos()))) {
                    return;
                }
            }
        }
        catch (InterruptedException ex) {
            // Only stop() interrupts, and only a standing candidate: nothing is held.
        }
    }

    /** The election's lock, or {@code null}: stopping, the wait ended, or the store failed (after a pause). */
    private @Nullable LockHandle takeLock() throws InterruptedException {
        if (!this.state.stand()) {
            return null;
        }
        try {
            return this.candidate.locks().acquire(this.candidate.request());
        }
        catch (LockNotAcquiredException ex) {
            return null;
        }
        catch (RuntimeException ex) {
            if (!this.state.stopping()) {
                logger.warn("The candidate of the election '" + this.candidate.name() + "' could not stand for its "
                        + "lock; it tries again in a second", ex);
                this.state.pause(RETRY_PAUSE_NANOS);
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
