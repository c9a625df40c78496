package io.github.redislock.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of a lock's life. With Micrometer's meter handler (Spring Boot adds it when the application
 * has a {@code MeterRegistry}) each gives a timer of its name and a long task timer {@code <name>.active} of
 * the ones in progress: {@code redis.lock.acquire} counts acquisitions by outcome and times the wait, and its
 * {@code .active} is the threads waiting now; {@code redis.lock.hold} times how long locks are held, and its
 * {@code .active} is the locks held now.
 */
public enum LockObservationDocumentation implements ObservationDocumentation {

    /**
     * Taking a lock, the wait for it included. Outcome {@code acquired}, {@code not-acquired} (taken by someone
     * else for the whole wait time) or {@code error} (the store failed, bad key, interrupted).
     */
    ACQUIRE(HighCardinalityKeyNames.KEY),

    /**
     * Holding a lock: from the moment it is taken until its release is done. The locked work runs within it (so
     * its spans are children of this one). Outcome {@code released}, {@code lost} (the lock turned out lost
     * while held) or {@code error} (the release failed: the lock ends with its lease).
     */
    HOLD(HighCardinalityKeyNames.KEY, HighCardinalityKeyNames.FENCING_TOKEN),

    /**
     * Releasing a lock: the store hands it to the next waiting application or frees it. Outcome
     * {@code released}, {@code lost} (the lock was no longer ours) or {@code error} (the store failed).
     */
    RELEASE(HighCardinalityKeyNames.KEY, HighCardinalityKeyNames.FENCING_TOKEN);

    private final KeyName[] highCardinalityKeyNames;

    LockObservationDocumentation(KeyName... highCardinalityKeyNames) {
        this.highCardinalityKeyNames = highCardinalityKeyNames;
    }

    @Override
    public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
        return DefaultLockObservationConvention.class;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
        return LowCardinalityKeyNames.values();
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
        return this.highCardinalityKeyNames.clone();
    }

    /** Key values with few distinct values: meter tags and span attributes. */
    public enum LowCardinalityKeyNames implements KeyName {

        /** How the step ended: acquired, not-acquired, released, lost or error. */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        },

        /** {@code wait} when the caller may wait for the lock, {@code try} for a single attempt (wait time 0). */
        MODE {
            @Override
            public String asString() {
                return "mode";
            }
        },

        /**
         * How the lock shares its keys: {@code write} (alone: a plain lock), {@code read} (a read lock) or
         * {@code semaphore} (one permit of a semaphore).
         */
        SHARING {
            @Override
            public String asString() {
                return "sharing";
            }
        }
    }

    /** Key values with unbounded distinct values: span attributes only. */
    public enum HighCardinalityKeyNames implements KeyName {

        /** The lock names, comma-separated when several are taken together. */
        KEY {
            @Override
            public String asString() {
                return "redis.lock.key";
            }
        },

        /** The fencing token of the acquisition (of the first key, for several). */
        FENCING_TOKEN {
            @Override
            public String asString() {
                return "redis.lock.fencing-token";
            }
        }
    }
}
