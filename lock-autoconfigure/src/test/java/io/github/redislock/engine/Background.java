package io.github.redislock.engine;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * A task on a thread of its own, so a test can tell where that thread is (waiting inside a lock call, or not)
 * and collect its result or failure. The thread is a daemon and {@link #close()} interrupts it, so a failed
 * test leaves nothing waiting behind.
 */
final class Background<T> implements AutoCloseable {

    private final CompletableFuture<T> result = new CompletableFuture<>();

    private final Thread thread;

    private Background(String name, Callable<T> task) {
        this.thread = new Thread(() -> {
            try {
                this.result.complete(task.call());
            }
            catch (Throwable ex) {
                this.result.completeExceptionally(ex);
            }
        }, name);
        this.thread.setDaemon(true);
    }

    static <T> Background<T> start(String name, Callable<T> task) {
        Background<T> background = new Background<>(name, task);
        background.thread.start();
        return background;
    }

    /**
     * Waits until the thread has been blocked (parked, or waiting for a Redis reply) without a break for
     * 300 ms and has not finished: on a loopback Redis that answers in well under a millisecond, it then
     * waits for the lock.
     */
    void awaitBlockedInside() {
        await("thread " + this.thread.getName() + " blocked waiting for the lock").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10)).during(Duration.ofMillis(300))
                .until(() -> !this.result.isDone() && isBlocked(this.thread.getState()));
    }

    private static boolean isBlocked(Thread.State state) {
        return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
    }

    boolean isDone() {
        return this.result.isDone();
    }

    /** The task's result; its exception if it threw (wrapped in an {@code ExecutionException}). */
    T get(Duration timeout) throws Exception {
        return this.result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (this.thread.isAlive()) {
            this.thread.interrupt();
            try {
                this.thread.join(TimeUnit.SECONDS.toMillis(10));
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
