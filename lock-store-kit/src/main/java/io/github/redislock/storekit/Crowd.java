package io.github.redislock.storekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** Threads that start together, for the checks under contention. */
final class Crowd {

    private Crowd() {
    }

    /**
     * Runs every task on a thread of its own, released together by a barrier, and waits for them all.
     * @param bound how long all may take: a liveness bound (a deadlock fails the check), not a speed claim
     * @throws Exception the first task's failure
     */
    static void run(List<Callable<?>> tasks, Duration bound) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(tasks.size());
        try {
            CyclicBarrier start = new CyclicBarrier(tasks.size());
            List<Future<?>> done = new ArrayList<>();
            for (Callable<?> task : tasks) {
                done.add(threads.submit(() -> {
                    start.await();
                    return task.call();
                }));
            }
            long deadline = System.nanoTime() + bound.toNanos();
            for (Future<?> future : done) {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
    }

    /**
     * Stays inside the section for up to 2 ms, at random: widens the window in which a second holder would show
     * in the {@link Witness}, and spreads releases over renewal rounds.
     */
    static void dwell() {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2)));
    }
}
