package io.github.redislock.integration;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ConcurrentTaskScheduler;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.engine.DaemonThreads;

/**
 * Keeps the registry's {@code lock()}/{@code tryLock()} locks alive: each held lock extended to the registry's
 * lease every third of it ({@link LockHandle#extend}, one round trip per lock), on a scheduler of the registry's
 * own (one daemon thread, made on first use) or the one Spring Integration hands it
 * ({@code setRenewalTaskScheduler}). A lock the store no longer holds stops being renewed; the engine has marked
 * and signalled its loss, and its holder's {@code unlock} throws. A round the store cannot answer is tried again
 * next period; the lease's own clock decides, in the engine, when the lock is lost.
 */
final class LeaseRenewals implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(LeaseRenewals.class);

    private final AtomicReference<@Nullable TaskScheduler> scheduler = new AtomicReference<>();

    private volatile @Nullable ScheduledExecutorService own;

    /** Uses this scheduler from now on (for locks taken from now on). */
    void use(TaskScheduler scheduler) {
        this.scheduler.set(scheduler);
    }

    /**
     * Renews the held lock every third of {@code lease}, until the returned future is cancelled or it is lost. The
     * lease began no earlier than {@code askedAtNanos}, when its acquisition was asked for: a lock that came with
     * less than a period of it left (a slow take) gets its first renewal halfway through what may be left.
     */
    ScheduledFuture<?> keep(LockHandle handle, Duration lease, long askedAtNanos) {
        Duration period = lease.dividedBy(3);
        Duration left = lease.minusNanos(System.nanoTime() - askedAtNanos);
        Duration first = (left.compareTo(period) < 0) ? (left.isNegative() ? Duration.ZERO : left.dividedBy(2))
                : period;
        AtomicReference<@Nullable ScheduledFuture<?>> self = new AtomicReference<>();
        Runnable renewal = () -> {
            try {
                if (!handle.extend(lease)) {
                    cancel(self.get());
                }
            }
            catch (LockException ex) {
                logger.warn("Could not renew lock '" + handle.key() + "'; trying again in " + period.toMillis()
                        + " ms", ex);
            }
            catch (IllegalStateException ex) {
                // Released meanwhile: its holder's unlock cancels this task too.
                cancel(self.get());
            }
        };
        ScheduledFuture<?> task = scheduler().scheduleAtFixedRate(renewal, Instant.now().plus(first), period);
        self.set(task);
        return task;
    }

    private static void cancel(@Nullable ScheduledFuture<?> task) {
        if (task != null) {
            task.cancel(false);
        }
    }

    private TaskScheduler scheduler() {
        TaskScheduler given = this.scheduler.get();
        if (given != null) {
            return given;
        }
        synchronized (this) {
            given = this.scheduler.get();
            if (given == null) {
                ScheduledExecutorService executor = Executors
                    .newSingleThreadScheduledExecutor(DaemonThreads.named("lock-registry-renewal"));
                this.own = executor;
                given = new ConcurrentTaskScheduler(executor);
                this.scheduler.set(given);
            }
            return given;
        }
    }

    /** Stops the registry's own renewal thread, if it made one (a scheduler handed to it is its owner's). */
    @Override
    public void close() {
        ScheduledExecutorService executor = this.own;
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
