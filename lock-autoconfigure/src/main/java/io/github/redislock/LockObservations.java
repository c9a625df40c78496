package io.github.redislock;

import java.util.List;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.github.redislock.observation.DefaultLockObservationConvention;
import io.github.redislock.observation.LockObservationContext;
import io.github.redislock.observation.LockObservationContext.Outcome;
import io.github.redislock.observation.LockObservationContext.Step;
import io.github.redislock.observation.LockObservationConvention;
import io.github.redislock.observation.LockObservationDocumentation;

/**
 * The template's observations: an acquire observation around taking the lock (the wait included), then a hold
 * observation from the moment it is taken until its release is done, with a release observation inside it.
 * Only created when the template was given a registry, and only used while the registry has handlers, so an
 * application without observability pays nothing for it.
 */
final class LockObservations {

    private final ObservationRegistry registry;

    private final List<LockObservationConvention> conventions;

    LockObservations(ObservationRegistry registry, List<? extends LockObservationConvention> conventions) {
        this.registry = registry;
        this.conventions = List.copyOf(conventions);
    }

    /** Whether anything listens: a registry without handlers creates no-op observations anyway. */
    boolean isActive() {
        return !this.registry.isNoop();
    }

    /**
     * Takes the lock under an acquire observation.
     * @return the handle, carrying a started hold observation that its {@link ObservedLockHandle#close()} ends
     */
    ObservedLockHandle acquire(LockRequest request, LockProvider locks) {
        boolean waiting = request.waitNanos() > 0;
        LockObservationContext context = new LockObservationContext(Step.ACQUIRE, request.keys(), waiting);
        context.setSharing(sharing(request));
        Observation acquire = observation(context).start();
        LockHandle handle;
        try (Observation.Scope scope = acquire.openScope()) {
            handle = LockDecisions.acquire(locks, request);
        }
        catch (LockNotAcquiredException ex) {
            // An expected outcome, not an error: the lock was busy for the whole wait time.
            context.setOutcome(Outcome.NOT_ACQUIRED);
            acquire.stop();
            throw ex;
        }
        catch (Throwable ex) {
            acquire.error(ex);
            acquire.stop();
            throw ex;
        }
        context.setOutcome(Outcome.ACQUIRED);
        context.setFencingToken(handle.fencingToken());
        acquire.stop();
        LockObservationContext holding = new LockObservationContext(Step.HOLD, request.keys(), waiting);
        holding.setFencingToken(handle.fencingToken());
        holding.setSharing(context.getSharing());
        return new ObservedLockHandle(handle, this, holding, observation(holding).start());
    }

    /**
     * Starts the release observation of a held lock, a child of its hold observation.
     * @param releasing the context made by {@link #releasing} (the observation's own may be a no-op's)
     */
    Observation release(LockObservationContext releasing, Observation hold) {
        return observation(releasing).parentObservation(hold).start();
    }

    /** The context of the release of a held lock. */
    static LockObservationContext releasing(LockObservationContext holding) {
        LockObservationContext context = new LockObservationContext(Step.RELEASE, holding.getKeys(),
                holding.isWaiting());
        context.setFencingToken(holding.getFencingToken());
        context.setSharing(holding.getSharing());
        return context;
    }

    /** The {@code sharing} key value of a request: {@code write}, {@code read} or {@code semaphore}. */
    private static String sharing(LockRequest request) {
        if (request.permits() > 1) {
            return "semaphore";
        }
        return (request.mode() == LockMode.READ) ? "read" : "write";
    }

    private Observation observation(LockObservationContext context) {
        return documentation(context.getStep()).observation(customConvention(context),
                DefaultLockObservationConvention.of(context.getStep()), () -> context, this.registry);
    }

    private @Nullable LockObservationConvention customConvention(LockObservationContext context) {
        for (LockObservationConvention convention : this.conventions) {
            if (convention.supportsContext(context)) {
                return convention;
            }
        }
        return null;
    }

    private static LockObservationDocumentation documentation(Step step) {
        return switch (step) {
            case ACQUIRE -> LockObservationDocumentation.ACQUIRE;
            case HOLD -> LockObservationDocumentation.HOLD;
            case RELEASE -> LockObservationDocumentation.RELEASE;
        };
    }
}
