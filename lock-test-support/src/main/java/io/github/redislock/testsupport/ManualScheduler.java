package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A scheduler whose clock is the test: nothing runs on its own. Tasks are recorded, and each {@link #tick()}
 * runs, on the test's thread, every task given to {@code execute}/{@code schedule} since the last tick
 * (whatever its delay) and every periodic task once. Periodic tasks stay until cancelled or until they throw,
 * like on a {@link java.util.concurrent.ScheduledThreadPoolExecutor}.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {

    private final List<Task<?>> tasks = new CopyOnWriteArrayList<>();

    private volatile boolean shutdown;

    /** Runs what is due after one period: pending one-shot tasks, then each periodic task once. */
    public void tick() {
        for (Task<?> task : List.copyOf(this.tasks)) {
            if (!task.runOnce()) {
                this.tasks.remove(task);
            }
        }
    }

    /** The periods of the periodic tasks still scheduled, in the order they were scheduled. */
    public List<Duration> periods() {
        List<Duration> periods = new ArrayList<>();
        for (Task<?> task : this.tasks) {
            if (task.periodNanos > 0 && !task.isCancelled()) {
                periods.add(Duration.ofNanos(task.periodNanos));
            }
        }
        return periods;
    }

    @Override
    public void execute(Runnable command) {
        add(new Task<>(command, 0, 0));
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return add(new Task<>(command, unit.toNanos(delay), 0));
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        return add(new Task<>(callable, unit.toNanos(delay)));
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        return add(new Task<>(command, unit.toNanos(initialDelay), periodNanos(period, unit)));
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
            TimeUnit unit) {
        return add(new Task<>(command, unit.toNanos(initialDelay), periodNanos(delay, unit)));
    }

    private static long periodNanos(long period, TimeUnit unit) {
        if (period <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return unit.toNanos(period);
    }

    private <V> Task<V> add(Task<V> task) {
        if (this.shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        this.tasks.add(task);
        return task;
    }

    @Override
    public void shutdown() {
        this.shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        this.shutdown = true;
        List<Runnable> pending = new ArrayList<>(this.tasks);
        this.tasks.clear();
        return pending;
    }

    @Override
    public boolean isShutdown() {
        return this.shutdown;
    }

    @Override
    public boolean isTerminated() {
        return this.shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return this.shutdown;
    }

    private static final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {

        private final long delayNanos;

        /** 0 for a one-shot task. */
        private final long periodNanos;

        Task(Runnable command, long delayNanos, long periodNanos) {
            super(command, null);
            this.delayNanos = delayNanos;
            this.periodNanos = periodNanos;
        }

        Task(Callable<V> callable, long delayNanos) {
            super(callable);
            this.delayNanos = delayNanos;
            this.periodNanos = 0;
        }

        /** Runs once; false when the task is finished (one-shot, cancelled, or a periodic run threw). */
        boolean runOnce() {
            if (this.periodNanos > 0) {
                return runAndReset();
            }
            run();
            return false;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(this.delayNanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }
    }
}
