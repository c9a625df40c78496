package io.github.redislock.redlock;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreLock;

/**
 * One Redlock lock (a write lock, or a share: a read lock, a semaphore's permit) held on a majority of nodes. It knows, per node, the value that node stored (the token and
 * that node's own fence, so values differ between nodes; a node that took the lock after the majority was
 * reached is picked up from the acquisition's answers). The engine keeps its lease clock and lost state, shares
 * it among nested acquisitions, renews it through {@link RedlockStore#extend} and releases it once.
 */
final class RedlockHandle implements StoreLock {

    private final RedlockStore store;

    private final String key;

    private final String token;

    private final long fence;

    private final long leaseMillis;

    private final long startNanos;

    private final Round<RedlockNode.Taken> acquisition;

    /** {@link Sharing#EXCLUSIVE} for a write lock; else the share, whose value on each node is its entry there. */
    private final Sharing sharing;

    /** The last extension sent, whose calls the next one's follow node by node; guarded by this. */
    private @Nullable Round<Boolean> lastExtension;

    RedlockHandle(RedlockStore store, String key, String token, long fence, long leaseMillis, long startNanos,
            Round<RedlockNode.Taken> acquisition, Sharing sharing) {
        this.store = store;
        this.sharing = sharing;
        this.key = key;
        this.token = token;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.startNanos = startNanos;
        this.acquisition = acquisition;
    }

    /**
     * Sends the extension to every node that took the lock; success on a node: extended there. On each node it
     * goes after the lock's previous extension there has ended: a round returns once a majority answered, and a
     * renewal still on its way to a slow node, applied after a holder's fixed extension, would give that node the
     * renewed lease again.
     */
    synchronized Round<Boolean> sendExtension(long leaseMillis) {
        Function<RedlockNode, Boolean> extend = (node) -> {
            String value = valueOn(node);
            return value != null && (this.sharing.isExclusive() ? node.renew(this.key, value, leaseMillis)
                    : node.renewShare(this.key, value, leaseMillis));
        };
        Round<Boolean> previous = this.lastExtension;
        Round<Boolean> round = (previous != null)
                ? Round.sendAfter(previous, this.store.nodes(), this.store.quorum(), this.store.calls(), extend,
                        (extended) -> extended)
                : Round.send(this.store.nodes(), this.store.quorum(), this.store.calls(), extend,
                        (extended) -> extended);
        this.lastExtension = round;
        return round;
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

    /** When the attempt that took it was sent; the store's validity leaves room for clock drift. */
    @Override
    public long leaseStartNanos() {
        return this.startNanos;
    }

    /** Reads every node: held while a majority holds this lock's token. */
    @Override
    public boolean verify() {
        Round<Boolean> read = Round.send(this.store.nodes(), this.store.quorum(), this.store.calls(),
                (node) -> this.sharing.isExclusive()
                        ? Objects.requireNonNullElse(node.read(this.key), "").startsWith(this.token + ':')
                        : holdsShare(node), (held) -> held);
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
        return false;
    }

    /** Whether the node still has this share's entry, with its lease not run out. */
    private boolean holdsShare(RedlockNode node) {
        String value = valueOn(node);
        return value != null && node.renewShare(this.key, value, 0);
    }

    /**
     * Releases on every node, and again on a node whose acquisition answers only later; a majority that no longer
     * held it means the lock had been lost. With
     * {@code keepMillis} (what is left of holdAtLeast), every node keeps the key, owned by nobody, for that long
     * instead (each counts from when the release reaches it, so no majority can form for anyone before the
     * minimum); the next holder's fencing token still comes from the counters, one above the largest.
     */
    @Override
    public boolean release(long keepMillis) {
        // A node whose acquisition has not answered yet may still take the key after this release reached it (the
        // two calls go out on different threads): release there again once it answers, as a failed attempt does.
        RedlockNode[] nodes = this.store.nodes();
        this.acquisition.whenAnswered((index) -> {
            try {
                this.store.calls().execute(() -> release(nodes[index], keepMillis));
            }
            catch (RuntimeException ex) {
                // Closed: the key expires with its lease there.
            }
        });
        Round<Boolean> release = Round.send(this.store.nodes(), this.store.quorum(), this.store.calls(),
                (node) -> release(node, keepMillis), (released) -> released);
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
        return release.successes() >= this.store.quorum();
    }

    /** Compare-and-release (or keep) on one node: the value there, or the share's entry there. */
    private boolean release(RedlockNode node, long keepMillis) {
        if (this.sharing.isExclusive()) {
            return node.release(this.key, this.token, keepMillis);
        }
        String value = valueOn(node);
        return node.releaseShare(this.key, (value != null) ? value : this.token + ':', keepMillis);
    }
}
