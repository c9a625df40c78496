package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import io.github.redislock.observation.LockObservationConvention;
import io.github.redislock.observation.LockObservationDocumentation;

/**
 * Programmatic locking, for code that cannot use {@code @DistributedLock}: the lock name is computed at
 * run time, or only part of a method must be locked. The annotation runs through the same path.
 *
 * <pre>{@code
 * Receipt receipt = lockTemplate.execute("sku:" + id + ":lock", Duration.ofMillis(500), null,
 *         () -> inventory.reserve(id));
 * }</pre>
 *
 * The key is used as given (after {@code redis-lock.key-prefix}); no expression is evaluated. A
 * {@code null} wait time means {@code redis-lock.wait-time}. A {@code null} lease time means a lease of
 * {@code redis-lock.lease-time} renewed for as long as the lock is held; a given lease is fixed and never
 * renewed. The same thread may take a lock it already holds (reentrancy); the lock is released when the
 * outermost holder is done. Every argument is checked before anything is locked.
 * <p>
 * Given an {@link ObservationRegistry} ({@link #setObservationRegistry}; the starter does it when the
 * application has one), every lock taken here is observed: taking it, holding it and releasing it (see
 * {@link LockObservationDocumentation}). With the category {@code io.github.redislock} at DEBUG, every decision
 * is logged.
 */
public class DistributedLockTemplate {

    private final LockProvider locks;

    private final Duration defaultWaitTime;

    private final OnLeaseLost onLeaseLost;

    /** {@code null} until an observation registry is set: then nothing is observed and nothing is paid. */
    private @Nullable ObservationRegistry observationRegistry;

    private List<? extends LockObservationConvention> observationConventions = List.of();

    private @Nullable LockObservations observations;

    /**
     * @param locks takes the locks (in the starter: the lock engine over the configured store)
     * @param defaultWaitTime the wait time of calls that pass {@code null}
     * @param onLeaseLost whether {@link #execute} and {@link #run} throw {@link LockLostException} when the lock
     * was lost while the action ran
     */
    public DistributedLockTemplate(LockProvider locks, Duration defaultWaitTime, OnLeaseLost onLeaseLost) {
        this.locks = locks;
        this.defaultWaitTime = defaultWaitTime;
        this.onLeaseLost = onLeaseLost;
    }

    /**
     * Runs the action under the lock and returns its result. Inside the action,
     * {@link LockContext#current()} is this lock.
     * @throws LockNotAcquiredException if the lock stays taken for the whole wait time (the action does not run)
     * @throws LockException if the store fails while the lock is taken (the action does not run)
     * @throws LockLostException if the lock was lost while the action ran and {@code redis-lock.on-lease-lost}
     * is {@code throw}
     */
    public <T> T execute(String key, @Nullable Duration waitTime, @Nullable Duration leaseTime, Supplier<T> action) {
        return execute(request(key, waitTime, leaseTime), action);
    }

    /**
     * Runs the action under every lock of the request; see {@link #execute(String, Duration, Duration, Supplier)}.
     */
    public <T> T execute(LockRequest request, Supplier<T> action) {
        if (action == null) {
            throw new IllegalArgumentException("action must not be null");
        }
        LockHandle handle = take(request);
        return LockedCall.run(handle, this.onLeaseLost == OnLeaseLost.THROW, within(handle, action));
    }

    /**
     * Runs an action that finishes later under every lock of the request: the locks are taken on the calling
     * thread (waiting up to the wait time), held until the stage the action returns completes, and released
     * on the thread that completes it. The returned future completes after the release, with the stage's
     * result or exception. Inside the action (while it creates its stage) {@link LockContext#current()} is
     * the lock; the stage's continuations run on other threads and do not see it. The lock is not reentrant
     * ({@link LockRequest#nonReentrant()}): the calling thread moves on while the work runs, so its next call
     * for the same key waits for this one like any other.
     * @throws LockNotAcquiredException if the lock stays taken for the whole wait time (the action does not run)
     * @throws LockException if the store fails while the lock is taken (the action does not run)
     */
    public <T> CompletableFuture<T> executeAsync(LockRequest request,
            Supplier<? extends @Nullable CompletionStage<T>> action) {
        if (action == null) {
            throw new IllegalArgumentException("action must not be null");
        }
        LockHandle handle = take(request.nonReentrant());
        return LockedCall.runAsync(handle, this.onLeaseLost == OnLeaseLost.THROW, within(handle, action));
    }

    /**
     * Takes every lock of the request and hands them to the caller, who must close the handle; for callers
     * that manage the lock's extent themselves (a reactive pipeline, say). {@link LockContext} does not see it.
     * @throws LockNotAcquiredException if the lock stays taken for the whole wait time
     * @throws LockException if the store fails (nothing is then held)
     */
    public LockHandle acquire(LockRequest request) {
        return take(request);
    }

    /**
     * Observes locking in this registry: an observation around taking each lock (the wait included), one while
     * it is held (the locked work runs within it) and one around its release; see
     * {@link LockObservationDocumentation}. Without a registry, or while it has no handlers, nothing is observed.
     */
    public void setObservationRegistry(ObservationRegistry observationRegistry) {
        this.observationRegistry = observationRegistry;
        this.observations = new LockObservations(observationRegistry, this.observationConventions);
    }

    /**
     * Conventions to use instead of the defaults: for each observation, the first that supports its context.
     */
    public void setObservationConventions(List<? extends LockObservationConvention> conventions) {
        this.observationConventions = List.copyOf(conventions);
        if (this.observationRegistry != null) {
            this.observations = new LockObservations(this.observationRegistry, this.observationConventions);
        }
    }

    /** What this template does when a lock turns out lost while its action ran. */
    public OnLeaseLost getOnLeaseLost() {
        return this.onLeaseLost;
    }

    /** Like {@link #execute}, for an action without a result. */
    public void run(String key, @Nullable Duration waitTime, @Nullable Duration leaseTime, Runnable action) {
        if (action == null) {
            throw new IllegalArgumentException("action must not be null");
        }
        execute(key, waitTime, leaseTime, () -> {
            action.run();
            return null;
        });
    }

    /**
     * Takes the lock and hands it to the caller, who must close it (try-with-resources).
     * {@link LockContext} does not see such a handle.
     * @return the handle, or empty if the lock stayed taken for the whole wait time
     * @throws LockException if the store fails (nothing is then held)
     */
    public Optional<LockHandle> tryAcquire(String key, @Nullable Duration waitTime, @Nullable Duration leaseTime) {
        return tryAcquire(request(key, waitTime, leaseTime));
    }

    /** Like {@link #tryAcquire(String, Duration, Duration)}, for every lock of the request. */
    public Optional<LockHandle> tryAcquire(LockRequest request) {
        try {
            return Optional.of(take(request));
        }
        catch (LockNotAcquiredException ex) {
            return Optional.empty();
        }
    }

    /** The one way every method takes its locks: observed when a registry listens, logged when DEBUG is on. */
    private LockHandle take(LockRequest request) {
        LockObservations current = this.observations;
        if (current != null && current.isActive()) {
            return current.acquire(request, this.locks);
        }
        return LockDecisions.acquire(this.locks, request);
    }

    /** The work, within the lock's hold observation when the lock is observed. */
    private static <T> Supplier<T> within(LockHandle handle, Supplier<T> work) {
        return (handle instanceof ObservedLockHandle observed) ? observed.within(work) : work;
    }

    /** The request of the key-based methods (and of Kotlin's {@code withLock}): the default wait time applied. */
    LockRequest request(String key, @Nullable Duration waitTime, @Nullable Duration leaseTime) {
        return LockRequest.of(key, (waitTime != null) ? waitTime : this.defaultWaitTime, leaseTime);
    }
}
