package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a call of a library that may wait without a limit of its own (Lettuce's client shutdown waits for its
 * connections to close with an unbounded {@code Future.get()}; Spring Data Redis takes its factory's lock and joins
 * a connect uninterruptibly) on a daemon thread of its own, and waits for it for a bounded time: a harness step that
 * does not end fails the test, naming what it waited for and where that call stood, instead of hanging the build.
 * JUnit's timeouts do not reach a JUnit extension's callbacks, nor a thread that does not answer its interrupt.
 * <pre>
 * RUNNING --returns--> returned   RUNNING --throws--> thrown again   RUNNING --limit passes--> IllegalStateException
 * </pre>
 * A call past its limit is left running on its daemon thread: there is no way to stop it.
 */
public final class BoundedCall {

    private BoundedCall() {
    }

    /**
     * @param what what the call does, for the failure's message ("destroying the Lettuce factory on ...")
     * @param limit how long it may take
     * @throws IllegalStateException if it did not end within the limit (with the call's stack), was interrupted
     * while waiting, or threw a checked exception (as the cause); an unchecked one is thrown as it was
     */
    public static void run(String what, Duration limit, Callable<?> call) {
        FutureTask<?> task = new FutureTask<>(call);
        Thread thread = new Thread(task, "bounded: " + what);
        thread.setDaemon(true);
        thread.start();
        try {
            task.get(limit.toNanos(), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            IllegalStateException failure = new IllegalStateException(
                    "Gave up after " + limit + ": " + what + " did not end (left running on its thread; its stack is "
                            + "this exception's cause's)");
            Throwable where = new Throwable("where the call stood after " + limit);
            where.setStackTrace(thread.getStackTrace());
            failure.initCause(where);
            throw failure;
        }
        catch (ExecutionException ex) {
            if (ex.getCause() instanceof RuntimeException unchecked) {
                throw unchecked;
            }
            if (ex.getCause() instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(what + " failed", ex.getCause());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while " + what, ex);
        }
    }
}
