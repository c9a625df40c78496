package io.github.redislock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockEngineState;

/**
 * The watchdog: keeps every renewed lock of one application alive, renewing all of them together every
 * third of the lease in one round trip (one per hash slot in a cluster), however many are held. A lock
 * stops being renewed the moment its release begins; a renewal that reaches Redis after the release finds
 * the key gone or someone else's and leaves it alone (compare-and-extend, never a SET). A key found not
 * ours is marked lost and signalled.
 * <p>
 * It runs on the scheduler it is given, so a test can tick it by hand ({@link #tick()}).
 */
final class LeaseRenewer implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(LeaseRenewer.class);

    private final LockProtocol protocol;

    private final LossSignal loss;

    private final ScheduledExecutorService scheduler;

    private final long leaseMillis;

    private final long periodMillis;

    private final boolean clustered;

    private final Set<HeldLock> locks = ConcurrentHashMap.newKeySet();

    /** Guarded by {@code this}. */
    private @Nullable ScheduledFuture<?> ticking;

    private volatile boolean failing;

    private volatile LockEngineProbe probe = LockEngineProbe.NONE;

    private volatile @Nullable Instant lastSuccess;

    private volatile @Nullable Instant lastFailure;

    private volatile @Nullable String lastError;

    private final AtomicLong failedRounds = new AtomicLong();

    LeaseRenewer(LockProtocol protocol, LossSignal loss, ScheduledExecutorService scheduler, long leaseMillis,
            boolean clustered) {
        this.protocol = protocol;
        this.loss = loss;
        this.scheduler = scheduler;
        this.leaseMillis = leaseMillis;
        this.periodMillis = Math.max(1, leaseMillis / 3);
        this.clustered = clustered;
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
            for (List<HeldLock> group : bySlot(batch)) {
                renew(group);
            }
            this.lastSuccess = Instant.now();
            if (this.failing) {
                this.failing = false;
                logger.info("Lease renewal works again");
            }
        }
        catch (RuntimeException ex) {
            // Keep trying every period: if Redis comes back before the leases run out nothing is lost; if it
            // comes back later, the next renewal finds the keys gone and reports the loss.
            this.lastFailure = Instant.now();
            this.lastError = String.valueOf(ex);
            this.failedRounds.incrementAndGet();
            this.probe.renewalFailed(batch.size(), ex);
            if (!this.failing) {
                this.failing = true;
                logger.warn("Lease renewal failed for " + batch.size() + " lock(s); retrying every "
                        + this.periodMillis + " ms", ex);
            }
        }
    }

    private void renew(List<HeldLock> group) {
        long sentAt = System.nanoTime();
        boolean[] extended = this.protocol.renew(group, this.leaseMillis);
        for (int i = 0; i < extended.length; i++) {
            HeldLock lock = group.get(i);
            if (extended[i]) {
                lock.extended(sentAt);
            }
            else if (lock.markLost()) {
                // markLost fails for a lock whose release has begun: its key is gone because we released it.
                this.locks.remove(lock);
                this.loss.lost(lock, LockLossDetection.RENEWAL);
            }
        }
    }

    void probe(LockEngineProbe probe) {
        this.probe = probe;
    }

    /** How renewal fares, for the endpoint. */
    LockEngineState.Renewal health() {
        return new LockEngineState.Renewal(Duration.ofMillis(this.periodMillis), this.failing, this.lastSuccess,
                this.lastFailure, this.lastError, this.failedRounds.get());
    }

    /** A script may only touch keys of one cluster slot. */
    private List<List<HeldLock>> bySlot(List<HeldLock> batch) {
        if (!this.clustered) {
            return List.of(batch);
        }
        Map<Integer, List<HeldLock>> groups = new LinkedHashMap<>();
        for (HeldLock lock : batch) {
            groups.computeIfAbsent(KeySlots.slot(lock.key.name), (slot) -> new ArrayList<>()).add(lock);
        }
        return new ArrayList<>(groups.values());
    }

    @Override
    public synchronized void close() {
        if (this.ticking != null) {
            this.ticking.cancel(false);
        }
        this.locks.clear();
    }
}
