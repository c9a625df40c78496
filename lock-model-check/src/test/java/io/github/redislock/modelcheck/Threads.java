package io.github.redislock.modelcheck;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs parts of a scenario on threads of their own and waits for all of them, inside a Lincheck
 * {@code runConcurrentTest} block, whose model checker then chooses how the threads interleave. Plain checks only
 * in there ({@link #require}): Lincheck instruments what runs inside, AssertJ included, and AssertJ's own
 * {@code equals} trips it.
 */
public final class Threads {

    private Threads() {
    }

    /** Starts every part on a thread of its own, then joins them all; a part's failure is rethrown. */
    public static void inParallel(Runnable... parts) {
        List<Thread> threads = new ArrayList<>();
        Throwable[] failures = new Throwable[parts.length];
        for (int i = 0; i < parts.length; i++) {
            int index = i;
            threads.add(new Thread(() -> {
                try {
                    parts[index].run();
                }
                catch (Throwable ex) {
                    failures[index] = ex;
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            try {
                thread.join();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
        for (Throwable failure : failures) {
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (failure instanceof Error error) {
                throw error;
            }
        }
    }

    /** Fails the scenario, saying what broke, unless the condition holds. */
    public static void require(boolean condition, String broken) {
        if (!condition) {
            throw new AssertionError(broken);
        }
    }

    /**
     * How many interleavings each model check explores: the system property {@code modelcheck.invocations}
     * ({@code ./verify} runs the default; {@code -Dmodelcheck.invocations=100000} runs longer).
     */
    public static int invocations(int byDefault) {
        return Integer.getInteger("modelcheck.invocations", byDefault);
    }
}
