package io.github.redislock.aop;

import java.util.function.Function;
import java.util.function.Supplier;

import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLostException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;
import io.github.redislock.OnLeaseLost;

/**
 * Locks a method that returns a publisher, for as long as its work runs: nothing happens until subscription;
 * then the lock is taken, the method is called and its publisher subscribed to, and the lock is released when
 * that publisher completes, fails or is cancelled. Taking and releasing the lock are Redis round trips that
 * may wait, so they run on Reactor's bounded-elastic scheduler, never on the subscriber's thread (which may
 * be an event loop). Only loaded when Project Reactor is on the class path.
 */
final class ReactiveLocking {

    private ReactiveLocking() {
    }

    static Publisher<Object> empty() {
        return Mono.empty();
    }

    /**
     * @param work calls the method and returns its publisher; runs on subscription, under the lock
     * @param notAcquired what a call whose lock stayed taken returns instead (fallback, skip), as a publisher;
     * it may also throw
     */
    static Publisher<Object> lock(DistributedLockTemplate template, LockRequest request, boolean multiValue,
            Supplier<Publisher<?>> work, Function<LockNotAcquiredException, Publisher<?>> notAcquired) {
        // Not reentrant: the acquiring thread is a pool thread that moves on to others' work at once.
        LockRequest unbound = request.nonReentrant();
        Mono<LockHandle> acquire = Mono.fromCallable(() -> acquire(template, unbound))
            .subscribeOn(Schedulers.boundedElastic());
        boolean throwOnLoss = template.getOnLeaseLost() == OnLeaseLost.THROW;
        Function<LockHandle, Publisher<?>> release = (handle) -> Mono.fromRunnable(handle::close)
            .subscribeOn(Schedulers.boundedElastic())
            .then(Mono.defer(() -> (handle.isLost() && throwOnLoss) ? Mono.error(lost(handle)) : Mono.empty()));
        Function<LockHandle, Publisher<?>> releaseQuietly = (handle) -> Mono.fromRunnable(handle::close)
            .subscribeOn(Schedulers.boundedElastic());
        Publisher<Object> locked;
        if (multiValue) {
            locked = Flux.usingWhen(acquire, (handle) -> Flux.defer(work::get), release,
                    (handle, error) -> releaseQuietly.apply(handle), releaseQuietly);
        }
        else {
            locked = Mono.usingWhen(acquire, (handle) -> Mono.defer(() -> Mono.from(work.get())), release,
                    (handle, error) -> releaseQuietly.apply(handle), releaseQuietly);
        }
        return multiValue
                ? Flux.from(locked).onErrorResume(NotAcquired.class, (signal) -> Flux.from(notAcquired.apply(signal.failure)))
                : Mono.from(locked).onErrorResume(NotAcquired.class, (signal) -> Mono.from(notAcquired.apply(signal.failure)));
    }

    private static LockHandle acquire(DistributedLockTemplate template, LockRequest request) {
        try {
            return template.acquire(request);
        }
        catch (LockNotAcquiredException ex) {
            // Marked as ours: a LockNotAcquiredException from the method's own work is the method's business.
            throw new NotAcquired(ex);
        }
    }

    private static RuntimeException lost(LockHandle handle) {
        return new LockLostException(handle.key(), "Lock '" + handle.key() + "' was lost while "
                + "the locked work ran, so another holder may have run it at the same time");
    }

    /** This call's own lock stayed taken. */
    @SuppressWarnings("serial")
    private static final class NotAcquired extends RuntimeException {

        final LockNotAcquiredException failure;

        NotAcquired(LockNotAcquiredException failure) {
            super(failure.getMessage(), failure, false, false);
            this.failure = failure;
        }
    }
}
