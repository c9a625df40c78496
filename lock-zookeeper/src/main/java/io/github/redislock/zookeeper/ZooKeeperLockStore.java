package io.github.redislock.zookeeper;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;

/**
 * The ZooKeeper store under {@link io.github.redislock.engine.LockEngine}, through Apache Curator. A key is a
 * container node under the base path ({@code /redis-lock/<name>}, the name encoded by {@link ZnodeNames}); every
 * acquisition that goes to ZooKeeper creates an ephemeral sequential node under it, and holds the lock when its
 * node is first in sequence order.
 * <ul>
 * <li><b>Waiting</b>: fair (first come, first served across every application) and notified: a waiter watches
 * only the node just before its own and sleeps until that one goes, so a release wakes exactly one waiter and
 * nothing polls. Each waiting thread has its own node (a local line sharing one node would have to pass the
 * lock between threads without a new node, and so without a new fencing token).</li>
 * <li><b>Fencing token</b>: the lock node's creation zxid ({@code czxid}), the id of the ZooKeeper transaction
 * that created it. Zxids are totally ordered across the ensemble's whole history (epoch in the high 32 bits,
 * counter in the low 32), and the holder of a key is always the oldest node under its parent, so holders of a
 * key get strictly increasing tokens, across sessions, clients, and parent nodes deleted and created again.</li>
 * <li><b>Loss</b>: the node is ephemeral: it goes when the session that created it ends. While the connection is
 * SUSPENDED the lock is not valid (nobody can tell whether the session still lives; {@code isHeld()} is false);
 * on RECONNECTED to the same session it is valid again; when the session is LOST (expired, or Curator made a new
 * ZooKeeper handle) the lock is lost and signalled ({@link LockLossDetection#SESSION}).</li>
 * <li><b>Nothing left behind</b>: a waiter that gives up (deadline, interrupt, failure) deletes its node and
 * removes its watch before it returns; Curator's protected mode finds and deletes a node whose create answer
 * was lost; parent nodes are containers, which the server deletes once they are empty.</li>
 * <li><b>A fixed leaseTime</b> is honoured by a timer in this application that deletes the node when it runs
 * out; the release then finds the lock no longer ours and the engine signals the loss, as on Redis.</li>
 * </ul>
 * Nothing is renewed: ZooKeeper keeps the session alive by itself (Curator's heartbeats).
 */
public final class ZooKeeperLockStore implements LockStore {

    private static final Log logger = LogFactory.getLog(ZooKeeperLockStore.class);

    /** How many times {@link #inspect} reads a line whose head keeps going before it gives up ({@code OTHER}). */
    private static final int INSPECT_ATTEMPTS = 5;

    /** Longest lock node data read as a token: ours are at most 22 + 1 + 13 characters. */
    private static final int MAX_TOKEN_BYTES = 64;

    private final CuratorFramework client;

    private final String basePath;

    private final long connectionTimeoutMillis;

    /** The engine, told of a session's end; set once, before any take. */
    private volatile StoreListener listener = (lock, how) -> {
    };

    /** The locks held now, told when the session is lost. */
    private final Set<ZooKeeperLock> held = ConcurrentHashMap.newKeySet();

    /** Where the lock nodes of each key queue. */
    private final LockLine line;

    /** This instance's node in the registry, and the reader of the others'. */
    private final InstanceNodes instances;

    private final ConnectionStateListener connectionListener = this::connectionChanged;

    /**
     * Connected to a server cut off from the quorum (only with a client that allows read-only mode): it cannot
     * vouch for the session.
     */
    private volatile boolean readOnly;

    /** Runs fixed leases out and holdAtLeast keeps; made on first use. */
    private volatile @Nullable ScheduledThreadPoolExecutor timers;

    /**
     * @param client a started Curator client (its connection and retry policy are used as they are)
     * @param basePath the absolute path under which lock nodes are made, e.g. {@code /redis-lock}
     * @param connectionTimeout how long a lock call waits for a connection before it fails
     */
    public ZooKeeperLockStore(CuratorFramework client, String basePath, Duration connectionTimeout) {
        this.client = client;
        this.basePath = BasePaths.checked(basePath);
        this.connectionTimeoutMillis = connectionTimeout.toMillis();
        this.line = new LockLine(client);
        this.instances = new InstanceNodes(client, this.basePath);
        client.getConnectionStateListenable().addListener(this.connectionListener);
    }

    /** The key's parent node: the base path and the encoded name. */
    @Override
    public String key(String name) {
        return child(this.basePath, ZnodeNames.encode(name));
    }

    /** The path of a node under a parent, the root included. */
    static String child(String parent, String node) {
        return parent + (parent.equals("/") ? "" : "/") + node;
    }

    /**
     * Writes this instance's node in the store's instance registry ({@link InstanceNodes}) now and after every
     * new session, until {@link #close}, so that the holder view of any application names it; once.
     * @param self this instance
     * @param ownerId the random id that begins the tokens of the engine over this store
     * ({@link io.github.redislock.engine.LockEngine#ownerId})
     */
    public void publishInstance(InstanceInfo self, String ownerId) {
        this.instances.publish(self, ownerId);
    }

    /**
     * Who holds the key now, whoever it is: reads the key's lock nodes in sequence order; the first holds the
     * lock. {@code fencingToken} is its creation zxid, {@code since} its creation time on the server's clock, and
     * the holder is named from its data (the token of the engine that made it) through the instance registry.
     * {@code leaseRemaining} is {@code null}: a ZooKeeper lock has no lease in the store (it lasts as long as its
     * session; a fixed leaseTime is a timer in the holder's own application, which no one else can see).
     * {@code waiting} counts the <b>nodes</b> queued behind the holder, not applications: each waiting thread has a
     * node of its own, so two threads of one application count two. A first node whose data is not one of this
     * library's tokens (written by another client: malformed, binary, too long) is {@link State#OTHER} with no
     * holder; a token of an engine the registry does not know (stopped, another version) is an unknown holder.
     * @throws LockException if there is no connection to ZooKeeper within the connection timeout
     */
    @Override
    public LockInspection inspect(String key) {
        awaitConnection(key);
        // The head may go between reading the line and reading its node: the line is read again, a few times.
        for (int attempt = 0; attempt < INSPECT_ATTEMPTS; attempt++) {
            List<String> line = this.line.lineNow(key);
            if (line.isEmpty()) {
                return LockInspection.free(key, 0);
            }
            Stat stat = new Stat();
            byte[] data;
            try {
                data = this.client.getData().storingStatIn(stat).forPath(child(key, line.get(0)));
            }
            catch (KeeperException.NoNodeException ex) {
                continue;
            }
            catch (Exception ex) {
                throw LockLine.failure("inspect", key, ex);
            }
            String ownerId = LockTokens.idOf(InstanceNodes.text(data, MAX_TOKEN_BYTES));
            Holder holder = null;
            if (ownerId != null) {
                InstanceInfo instance = this.instances.resolve(ownerId);
                holder = (instance != null) ? Holder.of(instance) : Holder.UNKNOWN;
            }
            return new LockInspection(key, (ownerId != null) ? State.HELD : State.OTHER, holder, stat.getCzxid(),
                    Instant.ofEpochMilli(stat.getCtime()), null, line.size() - 1);
        }
        return new LockInspection(key, State.OTHER, null, null, null, null, null);
    }

    @Override
    public @Nullable ZooKeeperLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadlineNanos) {
        awaitConnection(key);
        long instance = this.client.getZookeeperClient().getInstanceIndex();
        Stat stat = new Stat();
        String node = this.line.join(key, token, stat);
        ZooKeeperLock lock = null;
        try {
            if (!this.line.awaitTurn(key, node, deadlineNanos)) {
                return null;
            }
            // A fixed lease counts from when the lock is ours, not from the node's creation: a waiter that waited
            // in line longer than its lease would otherwise lose the lock to its own timer the moment it got it.
            long obtained = System.nanoTime();
            if (this.client.getZookeeperClient().getInstanceIndex() != instance) {
                throw new LockException("The ZooKeeper session ended while taking lock '" + key + "'");
            }
            lock = new ZooKeeperLock(this, key, node, token, this.line.fence(node, stat), instance, obtained);
            this.held.add(lock);
            if (sessionEnded(lock) && lock.lose()) {
                // The session ended just now, and the connection listener may have gone through the held locks
                // before this one was among them: the engine is told here instead (it may be before this returns).
                forget(lock);
                this.listener.lost(lock, LockLossDetection.SESSION);
            }
            if (!renewed) {
                startLease(lock, leaseMillis);
            }
            return lock;
        }
        finally {
            if (lock == null) {
                this.line.leave(node);
            }
        }
    }

    /** Waits up to the connection timeout for a connection; fails closed without one. */
    private void awaitConnection(String key) {
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

    private void startLease(ZooKeeperLock lock, long leaseMillis) {
        long delay = TimeUnit.MILLISECONDS.toNanos(leaseMillis) - (System.nanoTime() - lock.leaseStartNanos());
        lock.leaseTimer(timers().schedule(() -> {
            if (lock.expire()) {
                forget(lock);
                deleteInBackground(lock.node);
            }
        }, delay, TimeUnit.NANOSECONDS));
    }

    /**
     * Deletes a held lock's node now, or after {@code keepMillis} (holdAtLeast).
     * @return false if the node was no longer there, or not this lock's session's
     */
    boolean deleteHeld(ZooKeeperLock lock, long keepMillis) {
        if (keepMillis > 0) {
            // Kept: the node stays, owned by no thread, and goes when the minimum has passed (or with the session).
            boolean ours = nodeIsOurs(lock);
            if (ours) {
                timers().schedule(() -> deleteInBackground(lock.node), keepMillis, TimeUnit.MILLISECONDS);
            }
            return ours;
        }
        if (this.client.getZookeeperClient().getInstanceIndex() != lock.instance) {
            return false;
        }
        // A thread interrupted after its work (a cancelled task) still releases: the flag is set aside for the call.
        boolean interrupted = Thread.interrupted();
        try {
            this.client.delete().guaranteed().forPath(lock.node);
            return true;
        }
        catch (KeeperException.NoNodeException ex) {
            return false;
        }
        catch (Exception ex) {
            // Guaranteed: Curator deletes it once the connection is back; or it goes with the session.
            throw LockLine.failure("release", lock.key(), ex);
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether the node is there, made by this lock's session in the lock's transaction. */
    boolean nodeIsOurs(ZooKeeperLock lock) {
        if (sessionEnded(lock)) {
            return false;
        }
        try {
            Stat stat = this.client.checkExists().forPath(lock.node);
            return stat != null && stat.getCzxid() == lock.fencingToken() && !sessionEnded(lock);
        }
        catch (Exception ex) {
            throw LockLine.failure("check", lock.key(), ex);
        }
    }

    private void deleteInBackground(String node) {
        try {
            this.client.delete().quietly().guaranteed().inBackground().forPath(node);
        }
        catch (Exception ex) {
            logger.warn("Could not delete lock node " + node + "; it goes with the session", ex);
        }
    }

    /** Whether this lock's session is the client's current one and the client is connected to it. */
    boolean vouchesFor(ZooKeeperLock lock) {
        return this.client.getZookeeperClient().isConnected() && !this.readOnly && !sessionEnded(lock);
    }

    /** Whether Curator has made a new ZooKeeper handle (a new session) since the lock's node was made. */
    boolean sessionEnded(ZooKeeperLock lock) {
        return this.client.getZookeeperClient().getInstanceIndex() != lock.instance
                || this.client.getState() == CuratorFrameworkState.STOPPED;
    }

    void forget(ZooKeeperLock lock) {
        this.held.remove(lock);
    }

    /**
     * SUSPENDED needs nothing here ({@link #vouchesFor} reads the connection as it is); READ_ONLY is remembered
     * until a connection to the quorum; LOST loses every held lock and wakes every waiter, whose node went with
     * the session; RECONNECTED loses the locks of an earlier session.
     */
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
            this.line.wakeAll();
        }
    }

    /** Nothing expires: a lock lasts as long as the session that made its node. */
    @Override
    public boolean leased() {
        return false;
    }

    /** Never called by the engine (the store is not leased); answers whether each lock is still valid. */
    @Override
    public boolean[] extend(List<StoreLock> locks, long leaseMillis) {
        boolean[] held = new boolean[locks.size()];
        for (int i = 0; i < held.length; i++) {
            held[i] = locks.get(i).isValid();
        }
        return held;
    }

    @Override
    public void listen(StoreListener listener) {
        this.listener = listener;
    }

    /** Per key, how many threads of this application wait for it now. */
    @Override
    public Map<String, Integer> waiting() {
        return this.line.waiting();
    }

    /** One line for the start-up log and the endpoint: the ensemble and the base path. */
    @Override
    public String describe() {
        return "ZooKeeper " + connectString() + " " + this.basePath;
    }

    private String connectString() {
        return this.client.getZookeeperClient().getCurrentConnectionString();
    }

    private ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor timers = this.timers;
        if (timers == null) {
            synchronized (this) {
                timers = this.timers;
                if (timers == null) {
                    timers = new ScheduledThreadPoolExecutor(1, (task) -> {
                        Thread thread = new Thread(task, "redis-lock-zookeeper-timer");
                        thread.setDaemon(true);
                        return thread;
                    });
                    timers.setRemoveOnCancelPolicy(true);
                    this.timers = timers;
                }
            }
        }
        return timers;
    }

    /**
     * Deletes this instance's registry node, stops listening to the client and stops the timers (a kept node then
     * goes with the session); the client itself belongs to whoever made it. Closing again does nothing.
     */
    @Override
    public void close() {
        this.instances.withdraw();
        this.client.getConnectionStateListenable().removeListener(this.connectionListener);
        ScheduledThreadPoolExecutor timers = this.timers;
        if (timers != null) {
            timers.shutdownNow();
        }
    }
}
