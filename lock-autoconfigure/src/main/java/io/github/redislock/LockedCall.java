package io.github.redislock;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Runs work under an acquired lock, the same way for the template and the annotation (whose interceptor
 * calls the template): the lock is visible through
 * {@code LockContext} while the work runs and released afterwards, and the work's own outcome wins. A release
 * that fails because the store is unreachable does not turn finished work into a failure (the lock ends with
 * its lease); it is logged, or attached as suppressed to the work's own exception.
 */
final class LockedCall {

    private static final Log logger = LogFactory.getLog(LockedCall.class);

    private LockedCall() {
    }

    /**
     * @param handle the lock, already acquired; released here
     * @param throwOnLoss throw {@link LockLostException} when the lock turned out lost during work that completed
     */
    static <T> T run(LockHandle handle, boolean throwOnLoss, Supplier<T> work) {
        T result = underLock(handle, work);
        if (!release(handle, null) && throwOnLoss) {
            throw lost(handle);
        }
        return result;
    }

    /**
     * Runs the work with the lock visible through {@code LockContext}; if the work throws (whatever it throws),
     * releases and rethrows it unchanged.
     */
    private static <R> R underLock(LockHandle handle, Supplier<R> work) {
        R result;
        ThreadLocks.push(handle);
        try {
            result = work.get();
        }
        catch (Throwable ex) {
            // Throwable: a checked exception can arrive too (a sneaky throw, a Kotlin lambda), and must release.
            ThreadLocks.pop(handle);
            release(handle, ex);
            throw LockedCall.<RuntimeException>rethrow(ex);
        }
        ThreadLocks.pop(handle);
        return result;
    }

    /**
     * Like {@link #run}, for work that finishes later: the lock is held until the returned stage completes,
     * released on the thread that completes it, and the future this returns completes after that release
     * (exceptionally with {@link LockLostException} if the lock was lost meanwhile and {@code throwOnLoss}).
     * {@link LockContext} sees the lock while the work creates its stage, not in the stage's continuations.
     */
    static <T> CompletableFuture<T> runAsync(LockHandle handle, boolean throwOnLoss,
            Supplier<? extends @Nullable CompletionStage<T>> work) {
        CompletionStage<T> stage = underLock(handle, work);
        CompletableFuture<T> done = new CompletableFuture<>();
        if (stage == null) {
            release(handle, null);
            done.complete(null);
            return done;
        }
        stage.whenComplete((value, failure) -> {
            Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
                    ? failure.getCause() : failure;
            boolean held = release(handle, cause);
            if (cause != null) {
                done.completeExceptionally(cause);
            }
            else if (!held && throwOnLoss) {
                done.completeExceptionally(lost(handle));
            }
            else {
                done.complete(value);
            }
        });
        return done;
    }

    static LockLostException lost(LockHandle handle) {
        return new LockLostException(handle.key(), "Lock '" + handle.key() + "' was lost while the locked work "
                + "ran, so another holder may have run it at the same time");
    }

    /** Throws the work's own exception unchanged, checked or not, without wrapping it. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E rethrow(Throwable ex) throws E {
        throw (E) ex;
    }

    /**
     * Releases; returns false when the lock turned out lost during the work (by renewal or by this release).
     * Also the release of coroutine locks ({@code CoroutineLocks}).
     */
    static boolean release(LockHandle handle, @Nullable Throwable workFailure) {
        try {
            handle.close();
            LockDecisions.released(handle);
        }
        catch (LockException ex) {
            if (workFailure != null) {
                workFailure.addSuppressed(ex);
            }
            else {
                logger.warn("Could not release lock '" + handle.key() + "'; it expires when its lease ends", ex);
            }
        }
        return !handle.isLost();
    }
}
