package io.github.redislock.redlock;

import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;

/**
 * One Redlock lock held on a majority of nodes. It knows, per node, the value that node stored (the token and
 * that node's own fence, so values differ between nodes; a node that took the lock after the majority was
 * reached is picked up from the acquisition's answers). Held until closed, lost, or past its validity.
 */
final class RedlockHandle implements LockHandle {

    private final RedlockClient client;

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

    /**
     * Where holdAtLeast counts from: when the majority and the fencing token were confirmed, after every node
     * that counts took the key, so each node keeps it at least as long as asked.
     */
    private final long holdFromNanos = System.nanoTime();

    /** holdAtLeast in ns; 0: released at once when closed. */
    private volatile long holdAtLeastNanos;

    RedlockHandle(RedlockClient client, String key, String token, long fence, long leaseMillis, long startNanos,
            Round<RedlockNode.Taken> acquisition) {
        this.client = client;
        this.key = key;
        this.token = token;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.acquisition = acquisition;
        this.validUntil = startNanos + RedlockClient.validityNanos(leaseMillis);
    }

    /** Keeps the key on every node until this long after the acquisition when closed sooner (holdAtLeast). */
    void holdAtLeast(long nanos) {
        this.holdAtLeastNanos = nanos;
    }

    /** What is left of holdAtLeast at {@code now}, in ms rounded up; 0 when it has passed. */
    private long keepMillis(long now) {
        long left = this.holdAtLeastNanos - (now - this.holdFromNanos);
        if (left <= 0) {
            return 0;
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(left);
        return (TimeUnit.MILLISECONDS.toNanos(millis) < left) ? millis + 1 : millis;
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
        long validUntil = start + RedlockClient.validityNanos(this.leaseMillis);
        RedlockNode[] nodes = this.client.nodes();
        Round<Boolean> renewed = Round.send(nodes, this.client.quorum(), this.client.calls(), (node) -> {
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
        if (renewed.successes() >= this.client.quorum() && System.nanoTime() - this.validUntil < 0) {
            this.validUntil = validUntil;
        }
        else if (renewed.answered() >= this.client.quorum() || System.nanoTime() - this.validUntil >= 0) {
            // A majority answered and no longer holds it, or the lock ran out of validity unrenewed.
            markLost(LockLossDetection.RENEWAL);
        }
    }

    private @Nullable String valueOn(RedlockNode node) {
        RedlockNode[] nodes = this.client.nodes();
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
            this.client.lost(this, detection);
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
        Round<String> read = Round.send(this.client.nodes(), this.client.quorum(), this.client.calls(),
                (node) -> Objects.requireNonNullElse(node.read(this.key), ""),
                (value) -> value.startsWith(this.token + ':'));
        try {
            read.await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis), false);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while checking lock '" + this.key + "'", ex);
        }
        if (read.successes() >= this.client.quorum()) {
            return true;
        }
        if (read.answered() < this.client.quorum()) {
            throw new LockException("Only " + read.answered() + " Redlock nodes answered while checking lock '"
                    + this.key + "'", read.firstError());
        }
        markLost(LockLossDetection.COMMIT_CHECK);
        return false;
    }

    /**
     * Releases on every node; a majority that no longer held it means the lock had been lost. Closed before
     * holdAtLeast has passed, every node keeps the key, owned by nobody, for the rest of it instead (each counts
     * from when the release reaches it, so no majority can form for anyone before the minimum); the next
     * holder's fencing token still comes from the counters, one above the largest.
     */
    @Override
    public void close() {
        if (!this.released.compareAndSet(false, true)) {
            return;
        }
        cancelRenewal();
        long keepMillis = this.lost.get() ? 0 : keepMillis(System.nanoTime());
        Round<Boolean> release = Round.send(this.client.nodes(), this.client.quorum(), this.client.calls(),
                (node) -> node.release(this.key, this.token, keepMillis), (released) -> released);
        try {
            release.await(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis), false);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while releasing lock '" + this.key + "'; it expires when its "
                    + "lease ends", ex);
        }
        if (release.successes() < this.client.quorum() && release.answered() < this.client.quorum()) {
            throw new LockException("Only " + release.answered() + " Redlock nodes answered while releasing lock '"
                    + this.key + "'; it expires when its lease ends", release.firstError());
        }
        if (release.successes() < this.client.quorum() && !this.lost.get()) {
            markLost(LockLossDetection.RELEASE);
        }
    }
}
