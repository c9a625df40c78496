package io.github.redislock.testsupport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where tests run tasks that block (a holder, a waiter, a worker of an overlap test): each on a new daemon thread of
 * its own, so that they block side by side as applications' threads do. Not the default of
 * {@link CompletableFuture#runAsync(Runnable)}: that is the common pool, whose size is the cores less one (one on
 * two cores; since JDK 25 it is used there too), so a task that waits for another would queue behind it, and a test
 * of eight workers would run them one by one on some machines and side by side on others.
 */
public final class TaskThreads {

    private static final AtomicInteger COUNT = new AtomicInteger();

    private static final Executor OWN_THREAD = (task) -> {
        Thread thread = new Thread(task, "test-task-" + COUNT.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
    };

    private TaskThreads() {
    }

    /** Runs each task on a new daemon thread of its own. */
    public static Executor own() {
        return OWN_THREAD;
    }
}
