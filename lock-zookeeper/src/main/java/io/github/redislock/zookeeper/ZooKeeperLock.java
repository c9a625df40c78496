package io.github.redislock.zookeeper;

import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.StoreLock;

/**
 * One key held in ZooKeeper: this application's ephemeral sequential node under the key's parent node, admitted
 * in its line ({@link Admission}: a write lock first, a read lock with no write lock before it, a permit with
 * fewer than N nodes before it); admitted, it stays admitted until it goes. The node goes when it is deleted or
 * when the session that created it ends; nothing extends it. A read lock and a permit are held, released, kept and
 * lost exactly as a write lock, each by its own node.
 * <pre>
 * HELD --release--&gt; RELEASED (node deleted; or, for holdAtLeast, kept until the minimum has passed, then deleted)
 * HELD --fixed leaseTime runs out (the store's timer)--&gt; EXPIRED (node deleted; the release then reports the lock
 *        as not ours any more, and the engine signals the loss, as on Redis)
 * HELD --session LOST (expired, or Curator made a new ZooKeeper handle)--&gt; LOST (the engine is told: SESSION)
 * </pre>
 * A release from EXPIRED or LOST returns false, and {@link #verify()} false once the node is gone: the engine
 * marks the lock lost and signals it (RELEASE, COMMIT_CHECK), as for a Redis key found no longer ours.
 * Valid ({@link #isValid()}) while HELD, the session that created the node is the client's current one, and the
 * client is connected to it: while the connection is SUSPENDED nobody can tell whether the session still lives,
 * so the lock is not vouched for. Transitions out of HELD happen once, under this object's lock.
 */
final class ZooKeeperLock implements StoreLock {

    enum State {
        HELD, RELEASED, EXPIRED, LOST
    }

    private final ZooKeeperLockStore store;

    private final String key;

    /** The lock node's full path. */
    final String node;

    private final String token;

    private final long fence;

    /** Curator's ZooKeeper handle count when the node was created: another handle means another session. */
    final long instance;

    private final long leaseStartNanos;

    private State state = State.HELD;

    /** The fixed lease's timer, or {@code null} for a lock held until released. */
    private @Nullable ScheduledFuture<?> leaseTimer;

    ZooKeeperLock(ZooKeeperLockStore store, String key, String node, String token, long fence, long instance,
            long leaseStartNanos) {
        this.store = store;
        this.key = key;
        this.node = node;
        this.token = token;
        this.fence = fence;
        this.instance = instance;
        this.leaseStartNanos = leaseStartNanos;
    }

    @Override
    public String key() {
        return this.key;
    }

    /** The request's token, which the lock node keeps as its data. */
    @Override
    public String token() {
        return this.token;
    }

    /** The zxid of the transaction that created the lock node (its {@code czxid}). */
    @Override
    public long fencingToken() {
        return this.fence;
    }

    /** When this application learned that the node is first in line ({@link System#nanoTime()}): a fixed lease's start. */
    @Override
    public long leaseStartNanos() {
        return this.leaseStartNanos;
    }

    /** HELD, in the session that made the node, and connected to it. */
    @Override
    public boolean isValid() {
        return state() == State.HELD && this.store.vouchesFor(this);
    }

    /** Reads ZooKeeper now: whether the node is still there, made by this lock's session in the same transaction. */
    @Override
    public boolean verify() {
        return this.store.nodeIsOurs(this);
    }

    /**
     * Ends HELD, once: deletes the node (or keeps it for {@code keepMillis}, then deletes it).
     * @return false when the node was no longer this lock's: the fixed lease had run out, the session had ended,
     * or the node was gone
     */
    @Override
    public boolean release(long keepMillis) {
        synchronized (this) {
            if (this.state != State.HELD) {
                return false;
            }
            this.state = State.RELEASED;
            cancelLeaseTimer();
        }
        this.store.forget(this);
        return this.store.deleteHeld(this, keepMillis);
    }

    /** Starts the fixed lease's timer (the store's scheduler), unless the lock already ended. */
    synchronized void leaseTimer(ScheduledFuture<?> timer) {
        if (this.state == State.HELD) {
            this.leaseTimer = timer;
        }
        else {
            timer.cancel(false);
        }
    }

    /** While HELD, cancels the fixed lease's timer (an extension sets another): false, doing nothing, otherwise. */
    synchronized boolean cancelLease() {
        if (this.state != State.HELD) {
            return false;
        }
        cancelLeaseTimer();
        return true;
    }

    /** HELD to EXPIRED when the fixed lease runs out: true if this call made the move (the node must go). */
    synchronized boolean expire() {
        if (this.state != State.HELD) {
            return false;
        }
        this.state = State.EXPIRED;
        return true;
    }

    /** HELD to LOST when the session ended: true if this call made the move (the engine must be told). */
    synchronized boolean lose() {
        if (this.state != State.HELD) {
            return false;
        }
        this.state = State.LOST;
        cancelLeaseTimer();
        return true;
    }

    synchronized State state() {
        return this.state;
    }

    private void cancelLeaseTimer() {
        if (this.leaseTimer != null) {
            this.leaseTimer.cancel(false);
            this.leaseTimer = null;
        }
    }

    @Override
    public String toString() {
        return "ZooKeeperLock[" + this.node + ", czxid " + this.fence + ", " + state() + "]";
    }
}
