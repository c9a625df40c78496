package io.github.redislock.redlock;

import java.util.concurrent.TimeUnit;

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

    private final Round<Taken> acquisition;

    /** {@link Sharing#EXCLUSIVE} for a write lock; else the share, whose value on each node is its entry there. */
    private final Sharing sharing;

    /** The last extension sent, whose calls the next one's follow node by node; guarded by this. */
    private @Nullable Round<Boolean> lastExtension;

    RedlockHandle(RedlockStore store, String key, String token, long fence, long leaseMillis, long startNanos,
            Round<Taken> acquisition, Sharing sharing) {
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
        Round.Call<Boolean> extend = (node, answer) -> {
            String value = valueOn(node);
            if (value == null) {
                answer.answered(false, null);
            }
            else if (this.sharing.isExclusive()) {
                node.renew(this.key, value, leaseMillis, answer);
            }
            else {
                node.renewShare(this.key, value, leaseMillis, answer);
            }
        };
        Round<Boolean> previous = this.lastExtension;
        Round<Boolean> round = (previous != null)
                ? Round.sendAfter(previous, this.store.nodes(), this.store.quorum(), extend, (extended) -> extended)
                : Round.send(this.store.nodes(), this.store.quorum(), extend, (extended) -> extended);
        this.lastExtension = round;
        return round;
    }

    private @Nullable String valueOn(RedlockNode node) {
        RedlockNode[] nodes = this.store.nodes();
        for (int i = 0; i < nodes.length; i++) {
            if (nodes[i] == node) {
                Taken taken = this.acquisition.answer(i);
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
        Round<Boolean> read = Round.send(this.store.nodes(), this.store.quorum(), (node, answer) -> {
            if (this.sharing.isExclusive()) {
                node.read(this.key, (value, failure) -> answer.answered(
                        (failure == null) ? (Boolean) (value != null && value.startsWith(this.token + ':')) : null,
                        failure));
            }
            else {
                holdsShare(node, answer);
            }
        }, (held) -> held);
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
    private void holdsShare(RedlockNode node, Round.Answer<Boolean> answer) {
        String value = valueOn(node);
        if (value == null) {
            answer.answered(false, null);
        }
        else {
            node.renewShare(this.key, value, 0, answer);
        }
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
        NodeCommand command = this.sharing.isExclusive() ? RedlockNode.release(this.key, this.token, keepMillis)
                : null;
        this.acquisition.whenAnswered((index) -> release(nodes[index], command, keepMillis, Round.Answer.<Boolean>ignored()));
        Round<Boolean> release = Round.send(nodes, this.store.quorum(),
                (node, answer) -> release(node, command, keepMillis, answer), (released) -> released);
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

    /**
     * Compare-and-release (or keep) on one node: the write lock's value there ({@code command}, the same on every
     * node), or the share's entry there ({@code command} null).
     */
    private void release(RedlockNode node, @Nullable NodeCommand command, long keepMillis,
            Round.Answer<Boolean> answer) {
        if (command != null) {
            node.release(command, answer);
            return;
        }
        String value = valueOn(node);
        node.releaseShare(this.key, (value != null) ? value : this.token + ':', keepMillis, answer);
    }
}
