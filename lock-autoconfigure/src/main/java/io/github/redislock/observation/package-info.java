/**
 * Micrometer Observation of locking: what {@code DistributedLockTemplate} (and so {@code @DistributedLock})
 * reports around taking a lock (the wait included), holding it and releasing it, once the application has an
 * {@code ObservationRegistry}. One instrumentation gives both meters (through Micrometer's meter handler) and
 * traces. {@link LockObservationDocumentation} lists the observations and their key values;
 * {@link LockObservationConvention} is what an application implements to change names or tags.
 */
@NullMarked
package io.github.redislock.observation;

import org.jspecify.annotations.NullMarked;
