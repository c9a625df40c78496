package io.github.redislock.observation;

import java.util.List;
import java.util.Locale;

import io.micrometer.observation.Observation;

/**
 * What one observation of locking knows: which step it covers, the lock names, whether the caller waits, and
 * (once known) the outcome and the fencing token. The same context type serves the three steps, so one
 * convention can name them all.
 */
public class LockObservationContext extends Observation.Context {

    /** The step of a lock's life an observation covers. */
    public enum Step {

        /** Taking the lock, the wait for it included. */
        ACQUIRE,

        /** From the moment the lock is taken until it is released, the release included. */
        HOLD,

        /** The release alone: the store frees the lock or hands it on (one round trip on a single Redis). */
        RELEASE
    }

    /** How a step ended. */
    public enum Outcome {

        /** The lock was taken. */
        ACQUIRED,

        /** The lock stayed taken by someone else for the whole wait time. */
        NOT_ACQUIRED,

        /** The lock was released while still ours. */
        RELEASED,

        /** The lock turned out lost (its lease ran out, or the store lost it) while it was held. */
        LOST,

        /** The store failed, the key was invalid, or the thread was interrupted. */
        ERROR;

        /** The tag value: lower case, words joined by a hyphen ({@code not-acquired}). */
        public String value() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    private final Step step;

    private final List<String> keys;

    private final boolean waiting;

    private Outcome outcome = Outcome.ERROR;

    private long fencingToken = -1;

    private String sharing = "write";

    /**
     * @param keys the lock names as the caller gave them (without the key prefix)
     * @param waiting whether the caller may wait for the lock (a wait time above zero) or tries once
     */
    public LockObservationContext(Step step, List<String> keys, boolean waiting) {
        this.step = step;
        this.keys = List.copyOf(keys);
        this.waiting = waiting;
    }

    public Step getStep() {
        return this.step;
    }

    /** The lock names, in the order they are taken. */
    public List<String> getKeys() {
        return this.keys;
    }

    /** Whether the caller may wait for the lock; false for a single attempt (wait time zero). */
    public boolean isWaiting() {
        return this.waiting;
    }

    /** How the step ended; {@link Outcome#ERROR} until it is known. */
    public Outcome getOutcome() {
        return this.outcome;
    }

    public void setOutcome(Outcome outcome) {
        this.outcome = outcome;
    }

    /** The fencing token of the acquisition, or -1 before the lock is taken. */
    public long getFencingToken() {
        return this.fencingToken;
    }

    public void setFencingToken(long fencingToken) {
        this.fencingToken = fencingToken;
    }

    /**
     * How the request shares its keys: {@code write} (alone: a plain lock, the default), {@code read} (a read lock)
     * or {@code semaphore} (one permit of a semaphore).
     */
    public String getSharing() {
        return this.sharing;
    }

    public void setSharing(String sharing) {
        this.sharing = sharing;
    }
}
