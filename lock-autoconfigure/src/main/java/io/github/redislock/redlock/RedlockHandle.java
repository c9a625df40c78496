package io.github.redislock.redlock;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.StoreLock;

/**
 * One Redlock lock held on a majority of nodes. It knows, per node, the value that node stored (the token and
 * that node's own fence, so values differ between nodes; a node that took the lock after the majority was
 * reached is picked up from the acquisition's answers). Held until released, lost, or past its validity; the
 * engine shares it among nested acquisitions and releases it once.
 */
final class RedlockHandle implements StoreLock {

    private final RedlockStore store;

    private final String key;

    private final String token;

    private final long fence;

    private final long leaseMillis;

    private final Round<RedlockNode.Taken> acquisition;

    /** Until when the lock is valid by this JVM's clock ({@link System#nanoTime()}). */
    private volatile long validUntil;

    private final AtomicBoolean lost = new AtomicBoolean();

    private final AtomicBoolean released = new AtomicBoolean();

    private volatile @Nullable ScheduledFuture<?> renewal;

    RedlockHandle(RedlockStore store, String key, String token, long fence, long leaseMillis, long startNanos,
            Round<RedlockNode.Taken> acquisition) {
        this.store = store;
        this.key = key;
        this.token = token;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.acquisition = acquisition;
        this.validUntil = startNanos + RedlockStore.validityNanos(leaseMillis);
    }

    void scheduleRenewal(ScheduledExecutorService scheduler) {
        long period = Math.max(1, this.leaseMillis / 3);
        // An acquisition that waited for a node answering late hands the lock out with less than its lease left
        // (the copies on the first nodes were set when the attempt began): the first renewal comes halfway
        // through what is left when that is sooner than a period, or the copies would expire under the holder.
        long left = TimeUnit.NANOSECONDS.toMillis(this.validUntil - System.nanoTime());
        long first = Math.max(0, Math.min(period, left / 2));
        this.renewal = scheduler.scheduleWithFixedDelay(this::renew, first, period, TimeUnit.MILLISECONDS);
    }

    /** Extends the lease on every node that took it; fewer than a majority within the validity: lost. */
    void renew() {
        if (this.released.get() || this.lost.get()) {
            return;
        }
        long start = System.nanoTime();
        long validUntil = start + RedlockStore.validityNanos(this.leaseMillis);
        RedlockNode[] nodes = this.store.nodes();
        Round<Boolean> renewed = Round.send(nodes, this.store.quorum(), this.store.calls(), (node) -> {
            String value = valueOn(node);
            return value != null && node.renew(this.key, value, this.leaseMillis);
        }, (extended) -> extended);
        try {
            renewed.await(Math.min(validUntil, this.validUntil), false);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return;
        }
        if (renewed.successes() >= this.store.quorum() && System.nanoTime() - this.validUntil < 0) {
            this.validUntil = validUntil;
        }
        else if (renewed.answered() >= this.store.quorum() || System.nanoTime() - this.validUntil >= 0) {
            // A majority answered and no longer holds it, or the lock ran out of validity unrenewed.
            markLost(LockLossDetection.RENEWAL);
        }
    }

    private @Nullable String valueOn(RedlockNode node) {
        RedlockNode[] nodes = this.store.nodes();
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] == node) {
                RedlockNode.Taken taken = this.acquisition.answer(i);
                return (taken != null) ? taken.value() : null;
            }
        }
        return null;
    }

    private void markLost(LockLossDetection detection) {
        if (this.lost.compareAndSet(false, true)) {
            cancelRenewal();
            this.store.lost(this, detection);
        }
    }

    private void cancelRenewal() {
        ScheduledFuture<?> renewal = this.renewal;
        if (renewal != null) {
            renewal.cancel(false);
        }
    }

    @Override
    public String key() {
        return this.key;
    }

    /** {@code <token>:<fencing token>}; each node stores the token with a fence of its own. */
    @Override
    public String token() {
        return this.token + ':' + this.fence;
    }

    @Override
    public long fencingToken() {
        return this.fence;
    }

    @Override
    public boolean isHeld() {
        return !this.released.get() && !this.lost.get() && System.nanoTime() - this.validUntil < 0;
    }

    @Override
    public boolean isLost() {
        return this.lost.get();
    }

    @Override
    public boolean verifyHeld() {
        if (this.lost.get()) {
            return false;
        }
        Round<String> read = Round.send(this.store.nodes(), this.store.quorum(), this.store.calls(),
                (node) -> Objects.requireNonNullElse(node.read(this.key), ""),
                (value) -> value.startsWith(this.token + ':'));
        try {
            read.await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis), false);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while checking lock '" + this.key + "'", ex);
        }
        if (read.successes() >= this.store.quorum()) {
            return true;
        }
        if (read.answered() < this.store.quorum()) {
            throw new LockException("Only " + read.answered() + " Redlock nodes answered while checking lock '"
                    + this.key + "'", read.firstError());
        }
        markLost(LockLossDetection.COMMIT_CHECK);
        return false;
    }

    /**
     * Releases on every node; a majority that no longer held it means the lock had been lost. With
     * {@code keepMillis} (what is left of holdAtLeast), every node keeps the key, owned by nobody, for that long
     * instead (each counts from when the release reaches it, so no majority can form for anyone before the
     * minimum); the next holder's fencing token still comes from the counters, one above the largest.
     */
    @Override
    public void release(long keepMillis) {
        if (!this.released.compareAndSet(false, true)) {
            return;
        }
        cancelRenewal();
        Round<Boolean> release = Round.send(this.store.nodes(), this.store.quorum(), this.store.calls(),
                (node) -> node.release(this.key, this.token, keepMillis), (released) -> released);
        try {
            release.await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis), false);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while releasing lock '" + this.key + "'; it expires when its "
                    + "lease ends", ex);
        }
        if (release.successes() < this.store.quorum() && release.answered() < this.store.quorum()) {
            throw new LockException("Only " + release.answered() + " Redlock nodes answered while releasing lock '"
                    + this.key + "'; it expires when its lease ends", release.firstError());
        }
        if (release.successes() < this.store.quorum() && !this.lost.get()) {
            markLost(LockLossDetection.RELEASE);
        }
    }
}
