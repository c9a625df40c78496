package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;

import io.github.redislock.observation.LockObservationContext;
import io.github.redislock.observation.LockObservationContext.Outcome;

/**
 * A held lock under observation: everything is the lock's own, and closing it releases the lock under a release
 * observation, then ends the hold observation with the release's outcome.
 */
final class ObservedLockHandle implements LockHandle {

    private final LockHandle lock;

    private final LockObservations observations;

    private final LockObservationContext holding;

    private final Observation hold;

    private final AtomicBoolean closed = new AtomicBoolean();

    ObservedLockHandle(LockHandle lock, LockObservations observations, LockObservationContext holding,
            Observation hold) {
        this.lock = lock;
        this.observations = observations;
        this.holding = holding;
        this.hold = hold;
    }

    /**
     * The work, run with the hold observation as the current one (on the calling thread only), so that what
     * the work observes (its queries, its calls) nests under the lock; the work's own failure is recorded on it.
     */
    <T> Supplier<T> within(Supplier<T> work) {
        return () -> {
            try (Observation.Scope scope = openHoldScope()) {
                return work.get();
            }
            catch (Throwable ex) {
                // The annotation's interceptor carries the method's own exception in a CompletionException.
                workFailed((ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex);
                throw ex;
            }
        };
    }

    /**
     * Makes the hold observation the current one on this thread until the scope is closed (on this thread): around
     * the work, or while a coroutine holding the lock runs on the thread.
     */
    Observation.Scope openHoldScope() {
        return this.hold.openScope();
    }

    /** Records the locked work's own failure on the hold observation. */
    void workFailed(Throwable failure) {
        this.hold.error(failure);
    }

    @Override
    public String key() {
        return this.lock.key();
    }

    @Override
    public String token() {
        return this.lock.token();
    }

    @Override
    public long fencingToken() {
        return this.lock.fencingToken();
    }

    @Override
    public boolean isHeld() {
        return this.lock.isHeld();
    }

    @Override
    public boolean isLost() {
        return this.lock.isLost();
    }

    @Override
    public boolean verifyHeld() {
        return this.lock.verifyHeld();
    }

    @Override
    public boolean extend(Duration lease, Duration holdAtLeast) {
        return this.lock.extend(lease, holdAtLeast);
    }

    @Override
    public void close() {
        if (!this.closed.compareAndSet(false, true)) {
            return;
        }
        LockObservationContext releasing = LockObservations.releasing(this.holding);
        Observation release = this.observations.release(releasing, this.hold);
        try {
            this.lock.close();
            Outcome outcome = this.lock.isLost() ? Outcome.LOST : Outcome.RELEASED;
            releasing.setOutcome(outcome);
            this.holding.setOutcome(outcome);
        }
        catch (Throwable ex) {
            // Outcome stays ERROR on both: the key expires with its lease.
            release.error(ex);
            throw ex;
        }
        finally {
            release.stop();
            this.hold.stop();
        }
    }

    @Override
    public String toString() {
        return this.lock.toString();
    }
}
