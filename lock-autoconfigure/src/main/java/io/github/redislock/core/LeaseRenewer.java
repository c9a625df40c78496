package io.github.redislock.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The watchdog: one scheduler per client keeps every renewed lock alive, renewing all of them together
 * every third of the lease in one Redis round trip (per cluster slot in a cluster), however many are
 * held. A lock stops being renewed the moment its release begins; a renewal that reaches Redis after the
 * release finds the key gone or someone else's and leaves it alone (compare-and-extend, never a SET).
 */
final class LeaseRenewer implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

    private final RedisLockClient client;

    private final long periodMillis;

    private final Set<HeldLock> locks = ConcurrentHashMap.newKeySet();

    private final ScheduledExecutorService scheduler;

    private final boolean ownScheduler;

    private ScheduledFuture<?> ticking;

    private volatile boolean failing;

    LeaseRenewer(RedisLockClient client, long leaseMillis, ScheduledExecutorService scheduler) {
        this.client = client;
        this.periodMillis = Math.max(1, leaseMillis / 3);
        this.ownScheduler = (scheduler == null);
        this.scheduler = (scheduler != null) ? scheduler : newScheduler();
    }

    private static ScheduledExecutorService newScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
            Thread thread = new Thread(task, "redis-lock-renewal");
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** The client's one scheduler thread, shared with other housekeeping. */
    ScheduledExecutorService scheduler() {
        return this.scheduler;
    }

    long periodMillis() {
        return this.periodMillis;
    }

    void register(HeldLock lock) {
        this.locks.add(lock);
        startIfNeeded();
    }

    void unregister(HeldLock lock) {
        this.locks.remove(lock);
    }

    int size() {
        return this.locks.size();
    }

    private synchronized void startIfNeeded() {
        if (this.ticking == null) {
            this.ticking = this.scheduler.scheduleAtFixedRate(this::tick, this.periodMillis, this.periodMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** One renewal round for every lock held right now. */
    void tick() {
        if (this.locks.isEmpty()) {
            return;
        }
        List<HeldLock> batch = new ArrayList<>(this.locks);
        try {
            this.client.renew(batch);
            if (this.failing) {
                this.failing = false;
                logger.info("Lease renewal works again");
            }
        }
        catch (RuntimeException ex) {
            // Keep trying every period: if Redis comes back before the leases run out nothing is lost; if it
            // comes back later, the next renewal finds the keys gone and reports the loss.
            if (!this.failing) {
                this.failing = true;
                logger.warn("Lease renewal failed for " + batch.size() + " lock(s); retrying every "
                        + this.periodMillis + " ms", ex);
            }
        }
    }

    @Override
    public synchronized void close() {
        if (this.ticking != null) {
            this.ticking.cancel(false);
        }
        if (this.ownScheduler) {
            this.scheduler.shutdownNow();
        }
        this.locks.clear();
    }
}
