package io.github.redislock.zookeeper;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;

import io.github.redislock.LockException;
import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.StoreListener;

/**
 * The ZooKeeper session as {@link ZooKeeperLockStore}'s locks see it: whether the client can vouch for a lock's
 * session now, which locks are held in it, and what a change of the connection does to them. A session is told
 * apart by Curator's handle count ({@code getInstanceIndex()}): a new ZooKeeper handle means a new session, and
 * every node of the old one is gone (or soon will be).
 * <p>
 * The client's connection, as Curator reports it, and what each report does here:
 * <pre>
 * state        event                              next state   what happens here
 * (new)        CONNECTED (the first connection)   connected    nothing held yet
 * connected    SUSPENDED (connection cut)         suspended    nothing: vouchesFor reads the connection as it is,
 *                                                              and vouches for no lock until it is back
 * connected    READ_ONLY (a server cut off from   read-only    remembered: no lock is vouched for (that server
 *              the quorum; only with a client                   cannot tell whether the session lives)
 *              that allows read-only mode)
 * suspended/   RECONNECTED                        connected    read-only forgotten; every held lock of an earlier
 * read-only/                                                   session (after LOST: all of them were) moves to
 * lost                                                         LOST, and the engine is told (SESSION); the locks
 *                                                              of the same session are vouched for again
 * any          LOST (session expired, or Curator  lost         every held lock moves to LOST, the engine is told
 *              gave up on it)                                  (SESSION), and every waiter is woken (its node went
 *                                                              with the session)
 * </pre>
 * The held set and the read-only flag are this class's; a lock's own move to LOST is {@link ZooKeeperLock#lose}'s,
 * made once, so a lock taken while the session ends is told to the engine exactly once, by {@link #track} or by
 * the connection listener, whichever makes the move.
 */
final class SessionTracker {

    private final CuratorFramework client;

    private final long connectionTimeoutMillis;

    /** Wakes every thread waiting in a line: called when the session is lost. */
    private final Runnable wakeWaiters;

    /** The engine, told of a session's end; set once, before any take. */
    private volatile StoreListener listener = (lock, how) -> {
    };

    /** The locks held now, told when the session is lost. */
    private final Set<ZooKeeperLock> held = ConcurrentHashMap.newKeySet();

    /**
     * Connected to a server cut off from the quorum (only with a client that allows read-only mode): it cannot
     * vouch for the session.
     */
    private volatile boolean readOnly;

    private final ConnectionStateListener connectionListener = this::connectionChanged;

    SessionTracker(CuratorFramework client, long connectionTimeoutMillis, Runnable wakeWaiters) {
        this.client = client;
        this.connectionTimeoutMillis = connectionTimeoutMillis;
        this.wakeWaiters = wakeWaiters;
        client.getConnectionStateListenable().addListener(this.connectionListener);
    }

    void listen(StoreListener listener) {
        this.listener = listener;
    }

    /** Curator's handle count now: a lock's {@link ZooKeeperLock#instance} is this at its node's creation. */
    long instance() {
        return this.client.getZookeeperClient().getInstanceIndex();
    }

    /** Waits up to the connection timeout for a connection; fails closed without one. */
    void awaitConnection(String key) {
        if (this.client.getState() != CuratorFrameworkState.STARTED) {
            throw new LockException("Cannot take lock '" + key + "': the Curator client is "
                    + this.client.getState().name().toLowerCase(Locale.ROOT) + ", not started");
        }
        if (this.client.getZookeeperClient().isConnected()) {
            return;
        }
        try {
            if (!this.client.blockUntilConnected((int) this.connectionTimeoutMillis, TimeUnit.MILLISECONDS)) {
                throw new LockException("Cannot take lock '" + key + "': no connection to ZooKeeper ("
                        + connectString() + ") within " + this.connectionTimeoutMillis + " ms");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while waiting for a ZooKeeper connection for lock '" + key + "'",
                    ex);
        }
    }

    /**
     * Counts a lock just taken among the held ones, so that the end of its session reaches it; if the session
     * ended just now, the connection listener may have gone through the held locks before this one was among
     * them: the engine is told here instead (it may be before the take returns).
     */
    void track(ZooKeeperLock lock) {
        this.held.add(lock);
        if (sessionEnded(lock) && lock.lose()) {
            forget(lock);
            this.listener.lost(lock, LockLossDetection.SESSION);
        }
    }

    void forget(ZooKeeperLock lock) {
        this.held.remove(lock);
    }

    /** Whether this lock's session is the client's current one and the client is connected to it. */
    boolean vouchesFor(ZooKeeperLock lock) {
        return this.client.getZookeeperClient().isConnected() && !this.readOnly && !sessionEnded(lock);
    }

    /** Whether Curator has made a new ZooKeeper handle (a new session) since the lock's node was made. */
    boolean sessionEnded(ZooKeeperLock lock) {
        return instance() != lock.instance || this.client.getState() == CuratorFrameworkState.STOPPED;
    }

    /** See the class's table. */
    private void connectionChanged(CuratorFramework client, ConnectionState state) {
        if (state == ConnectionState.READ_ONLY) {
            this.readOnly = true;
        }
        else if (state.isConnected()) {
            this.readOnly = false;
        }
        if (state == ConnectionState.LOST || state == ConnectionState.RECONNECTED) {
            for (ZooKeeperLock lock : List.copyOf(this.held)) {
                if ((state == ConnectionState.LOST || sessionEnded(lock)) && lock.lose()) {
                    forget(lock);
                    this.listener.lost(lock, LockLossDetection.SESSION);
                }
            }
        }
        if (state == ConnectionState.LOST) {
            this.wakeWaiters.run();
        }
    }

    String connectString() {
        return this.client.getZookeeperClient().getCurrentConnectionString();
    }

    /** Stops listening to the client's connection. */
    void close() {
        this.client.getConnectionStateListenable().removeListener(this.connectionListener);
    }
}
