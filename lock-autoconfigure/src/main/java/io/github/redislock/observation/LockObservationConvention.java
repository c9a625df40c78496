package io.github.redislock.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and key values of lock observations. Declare beans of this type (usually extending
 * {@link DefaultLockObservationConvention}) to change them: the template uses, for each observation, the first
 * one that {@linkplain #supportsContext supports} its context (narrow it to one
 * {@link LockObservationContext.Step} to change one step only), and the default otherwise.
 */
public interface LockObservationConvention extends ObservationConvention<LockObservationContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof LockObservationContext;
    }
}
