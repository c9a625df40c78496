package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;

/**
 * The watchdog of one engine: keeps every renewed lock alive, asking the store to extend all of them together
 * every third of the lease ({@link LockStore#extend}, one call per tick however many are held; the store
 * batches its round trips as it can). A lock stops being renewed the moment its release begins; one the store
 * says it no longer holds ({@link Extension#NOT_HELD}) is handed to {@code lost} (which marks and signals it). A
 * round the store cannot answer, or a lock it cannot answer for this tick ({@link Extension#UNKNOWN}), is retried
 * next tick, and those locks count as held until their leases run out by the local clock; the other locks of the
 * round keep what the store said of them. A lock whose lease runs out with no extension confirmed before (the
 * rounds failed or left it unknown, or answered only after it ran out) is handed to {@code lost} too, and never
 * extended again: the store can no longer vouch for it (one Redis has expired the key; on Redlock no majority
 * confirmed it within its validity), and extending it further could only keep alive copies that no longer make
 * it held (Redlock: those on a minority of nodes, outliving the restart of the nodes that forgot it) or have it
 * count as held again after it had stopped. What is left of it in the store goes with its release, when the
 * section ends.
 * <p>
 * It runs on the scheduler it is given, so a test can tick it by hand ({@link #tick()}). Rounds run one at a time,
 * and {@link #stop} waits for a round under way: a lock taken out of renewal ({@link Extender}) is in no round
 * that could still extend it with the renewed lease.
 */
final class Renewer implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(Renewer.class);

    private final LockStore store;

    private final ScheduledExecutorService scheduler;

    private final long leaseMillis;

    private final long periodMillis;

    private final Consumer<Entry> lost;

    private final Set<Entry> entries = ConcurrentHashMap.newKeySet();

    /** Held for a whole round, and by {@link #stop}. */
    private final Object rounds = new Object();

    /** Guarded by {@code this}. */
    private @Nullable ScheduledFuture<?> ticking;

    private volatile boolean failing;

    private volatile LockEngineProbe probe = LockEngineProbe.NONE;

    private volatile @Nullable Instant lastSuccess;

    private volatile @Nullable Instant lastFailure;

    private volatile @Nullable String lastError;

    private final AtomicLong failedRounds = new AtomicLong();

    /**
     * @param lost told of a lock the store no longer holds, or whose lease ran out with no extension confirmed; it
     * marks the lock lost and signals the loss
     */
    Renewer(LockStore store, ScheduledExecutorService scheduler, long leaseMillis, Consumer<Entry> lost) {
        this.store = store;
        this.scheduler = scheduler;
        this.leaseMillis = leaseMillis;
        this.periodMillis = Math.max(1, leaseMillis / 3);
        this.lost = lost;
    }

    long periodMillis() {
        return this.periodMillis;
    }

    /**
     * Renews the lock from the next tick on. A lock handed out with less than about a period of its lease left (a
     * take that waited long for a slow node) gets a round of its own halfway through what is left, or it could
     * run out before the next tick.
     */
    void register(Entry entry, long validNanos) {
        this.entries.add(entry);
        startIfNeeded();
        // Counted from when the store returned the lock (a moment ago), sparing the hot path a clock read.
        long left = entry.lock.leaseStartNanos() + validNanos - entry.holdFromNanos;
        if (left < TimeUnit.MILLISECONDS.toNanos(this.periodMillis) * 5 / 4) {
            try {
                this.scheduler.schedule(this::tick, Math.max(0, left / 2), TimeUnit.NANOSECONDS);
            }
            catch (RejectedExecutionException ex) {
                // Closed: the lock expires with its lease.
            }
        }
    }

    void unregister(Entry entry) {
        this.entries.remove(entry);
    }

    /**
     * Stops renewing the lock, waiting for a round under way to end (at most the store's command timeout): no
     * round sends an extension of it after this returns.
     */
    void stop(Entry entry) {
        synchronized (this.rounds) {
            this.entries.remove(entry);
        }
    }

    private synchronized void startIfNeeded() {
        if (this.ticking == null) {
            this.ticking = this.scheduler.scheduleAtFixedRate(this::tick, this.periodMillis, this.periodMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** One renewal round for every lock held right now whose lease has not run out. */
    void tick() {
        if (this.entries.isEmpty()) {
            return;
        }
        synchronized (this.rounds) {
            round();
        }
    }

    private void round() {
        long sentAt = System.nanoTime();
        List<Entry> batch = new ArrayList<>(this.entries.size());
        for (Entry entry : this.entries) {
            if (entry.leaseRanOut(sentAt)) {
                this.lost.accept(entry);
            }
            else {
                batch.add(entry);
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        List<StoreLock> locks = new ArrayList<>(batch.size());
        for (Entry entry : batch) {
            locks.add(entry.lock);
        }
        Extension[] answers;
        try {
            answers = this.store.extend(locks, this.leaseMillis);
        }
        catch (RuntimeException ex) {
            failed(batch.size(), ex);
            // A round that failed late (a command timeout) may have outlasted a lease: lost now, not a tick later.
            ranOut(batch, System.nanoTime());
            return;
        }
        long answeredAt = System.nanoTime();
        int unknown = 0;
        for (int i = 0; i < answers.length; i++) {
            Entry entry = batch.get(i);
            if (answers[i] == Extension.UNKNOWN) {
                // Asked again next tick; lost only if its lease runs out first.
                unknown++;
                if (entry.leaseRanOut(answeredAt)) {
                    this.lost.accept(entry);
                }
            }
            else if (answers[i] == Extension.EXTENDED && !entry.leaseRanOut(answeredAt)) {
                entry.extended(sentAt);
            }
            else {
                // Not held, or confirmed only after its lease had run out by the local clock.
                this.lost.accept(entry);
            }
        }
        if (unknown > 0) {
            failed(unknown, new LockException("The store could not confirm the extension of " + unknown + " of "
                    + answers.length + " lock(s) this round; retrying next tick"));
            return;
        }
        this.lastSuccess = Instant.now();
        if (this.failing) {
            this.failing = false;
            logger.info("Lease renewal works again");
        }
    }

    private void ranOut(List<Entry> batch, long nowNanos) {
        for (Entry entry : batch) {
            if (entry.leaseRanOut(nowNanos)) {
                this.lost.accept(entry);
            }
        }
    }

    private void failed(int locks, RuntimeException ex) {
        // Keep trying every period: if the store comes back before the leases run out nothing is lost; a lease
        // that runs out first is lost by the local clock.
        this.lastFailure = Instant.now();
        this.lastError = String.valueOf(ex);
        this.failedRounds.incrementAndGet();
        this.probe.renewalFailed(locks, ex);
        if (!this.failing) {
            this.failing = true;
            logger.warn("Lease renewal failed for " + locks + " lock(s); retrying every " + this.periodMillis
                    + " ms", ex);
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

    @Override
    public synchronized void close() {
        if (this.ticking != null) {
            this.ticking.cancel(false);
        }
        this.entries.clear();
    }
}
