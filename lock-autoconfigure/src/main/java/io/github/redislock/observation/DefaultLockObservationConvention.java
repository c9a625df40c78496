package io.github.redislock.observation;

import java.util.Locale;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;

import io.github.redislock.observation.LockObservationContext.Step;
import io.github.redislock.observation.LockObservationDocumentation.HighCardinalityKeyNames;
import io.github.redislock.observation.LockObservationDocumentation.LowCardinalityKeyNames;

/**
 * The default convention of one step: named {@code redis.lock.acquire}, {@code redis.lock.hold} or
 * {@code redis.lock.release}, tagged with {@code outcome}, {@code mode} and {@code sharing} (low cardinality: safe as meter
 * tags); the lock key (the keys, comma-separated, at most {@value #MAX_KEY_VALUE_LENGTH} chars) and the fencing
 * token are high-cardinality key values (spans, not meters).
 */
public class DefaultLockObservationConvention implements LockObservationConvention {

    /** Taking a lock, the wait included. */
    public static final DefaultLockObservationConvention ACQUIRE = new DefaultLockObservationConvention(Step.ACQUIRE);

    /** Holding a lock, until its release is done. */
    public static final DefaultLockObservationConvention HOLD = new DefaultLockObservationConvention(Step.HOLD);

    /** Releasing a lock. */
    public static final DefaultLockObservationConvention RELEASE = new DefaultLockObservationConvention(Step.RELEASE);

    private static final KeyValue WAIT = KeyValue.of(LowCardinalityKeyNames.MODE, "wait");

    private static final KeyValue TRY = KeyValue.of(LowCardinalityKeyNames.MODE, "try");

    /**
     * Longest {@code redis.lock.key} value, in chars: keys come from requests, and a call may lock up to
     * {@code redis-lock.max-keys-per-call} of them; a longer value is cut and ends in "...".
     */
    public static final int MAX_KEY_VALUE_LENGTH = 256;

    private final Step step;

    private final String name;

    private final String contextualName;

    /** The convention of one step; subclass it to change a step's key values. */
    public DefaultLockObservationConvention(Step step) {
        this.step = step;
        String stepName = step.name().toLowerCase(Locale.ROOT);
        this.name = "redis.lock." + stepName;
        this.contextualName = "lock " + stepName;
    }

    /** The default convention of the step. */
    public static DefaultLockObservationConvention of(Step step) {
        return switch (step) {
            case ACQUIRE -> ACQUIRE;
            case HOLD -> HOLD;
            case RELEASE -> RELEASE;
        };
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext lock && lock.getStep() == this.step;
    }

    @Override
    public String getName() {
        return this.name;
    }

    @Override
    public String getContextualName(LockObservationContext context) {
        return this.contextualName;
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
        return KeyValues.of(KeyValue.of(LowCardinalityKeyNames.OUTCOME, context.getOutcome().value()),
                context.isWaiting() ? WAIT : TRY, KeyValue.of(LowCardinalityKeyNames.SHARING, context.getSharing()));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(LockObservationContext context) {
        KeyValue key = KeyValue.of(HighCardinalityKeyNames.KEY, capped(String.join(",", context.getKeys())));
        if (context.getFencingToken() < 0) {
            return KeyValues.of(key);
        }
        return KeyValues.of(key,
                KeyValue.of(HighCardinalityKeyNames.FENCING_TOKEN, Long.toString(context.getFencingToken())));
    }

    private static String capped(String keys) {
        return (keys.length() <= MAX_KEY_VALUE_LENGTH) ? keys
                : keys.substring(0, MAX_KEY_VALUE_LENGTH - 3).concat("...");
    }
}
