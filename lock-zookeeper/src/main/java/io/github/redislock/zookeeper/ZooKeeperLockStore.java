package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;

/**
 * The ZooKeeper store under {@link io.github.redislock.engine.LockEngine}, through Apache Curator. A key is a
 * container node under the base path ({@code /redis-lock/<name>}, the name encoded by {@link ZnodeNames}); every
 * acquisition that goes to ZooKeeper creates an ephemeral sequential node under it, named for how it shares the
 * key ({@link LineNode}: a write lock, a read lock, a permit of a semaphore of N), and holds the key when
 * {@link Admission} admits it: a write (exclusive) lock when its node is first in sequence order, a read lock when
 * no write lock's node is before it, a permit when fewer than N nodes are before it. A node whose line holds an
 * earlier node of another permit count fails its take at once with {@link Sharing#mismatch} and is deleted.
 * <ul>
 * <li><b>Waiting</b>: fair (in arrival order across every application: a reader arriving while a writer waits
 * queues behind it) and notified: a waiter watches only the nodes whose departure may admit it (a write lock the
 * node just before its own, a reader the nearest write lock before it, a permit the N nodes just before it) and
 * sleeps until one goes, so a release wakes only waiters it may admit (at most N for a semaphore, every reader
 * behind a writer) and nothing polls. Each waiting thread has its own node (a local line sharing one node would
 * have to pass the lock between threads without a new node, and so without a new fencing token).</li>
 * <li><b>Fencing token</b>: the lock node's creation zxid ({@code czxid}), the id of the ZooKeeper transaction
 * that created it. Zxids are totally ordered across the ensemble's whole history (epoch in the high 32 bits,
 * counter in the low 32), and nodes of a key are admitted in sequence order, whatever their kind (a writer only
 * once every earlier node is gone), so holders of a key get tokens greater than every earlier holder's, across
 * kinds, sessions, clients, and parent nodes deleted and created again.</li>
 * <li><b>Loss</b>: the node is ephemeral: it goes when the session that created it ends (a crashed application's
 * permits and read locks come back after its session timeout, with nothing to sweep). While the connection is
 * SUSPENDED the lock is not valid (nobody can tell whether the session still lives; {@code isHeld()} is false);
 * on RECONNECTED to the same session it is valid again; when the session is LOST (expired, or Curator made a new
 * ZooKeeper handle) the lock is lost and signalled ({@link io.github.redislock.LockLossDetection#SESSION}).</li>
 * <li><b>Nothing left behind</b>: a waiter that gives up (deadline, interrupt, failure) deletes its node and
 * removes its watch before it returns; Curator's protected mode finds and deletes a node whose create answer
 * was lost; parent nodes are containers, which the server deletes once they are empty.</li>
 * <li><b>A fixed leaseTime</b> is honoured by a timer in this application that deletes the node when it runs
 * out; the release then finds the lock no longer ours and the engine signals the loss, as on Redis.</li>
 * </ul>
 * Nothing is renewed: ZooKeeper keeps the session alive by itself (Curator's heartbeats). The parts, each with
 * its own state: {@link LockLine} (joining, waiting, leaving), {@link SessionTracker} (the connection, the session
 * and the locks held in it), {@link LockTimers} (fixed leases, holdAtLeast), {@link LineInspector} and
 * {@link InstanceNodes} (the holder view); a lock's own states are {@link ZooKeeperLock}'s. This class takes and
 * releases.
 */
public final class ZooKeeperLockStore implements LockStore {

    private final CuratorFramework client;

    private final String basePath;

    /** Where the lock nodes of each key queue. */
    private final LockLine line;

    /** The connection, the session, and the locks held in it. */
    private final SessionTracker session;

    /** Runs fixed leases out and holdAtLeast keeps. */
    private final LockTimers timers;

    /** This instance's node in the registry, and the reader of the others'. */
    private final InstanceNodes instances;

    private final LineInspector inspector;

    /**
     * @param client a started Curator client (its connection and retry policy are used as they are)
     * @param basePath the absolute path under which lock nodes are made, e.g. {@code /redis-lock}
     * @param connectionTimeout how long a lock call waits for a connection before it fails
     */
    public ZooKeeperLockStore(CuratorFramework client, String basePath, Duration connectionTimeout) {
        this.client = client;
        this.basePath = BasePaths.checked(basePath);
        this.line = new LockLine(client);
        this.session = new SessionTracker(client, connectionTimeout.toMillis(), this.line::wakeAll);
        this.timers = new LockTimers(client, this.session::forget);
        this.instances = new InstanceNodes(client, this.basePath);
        this.inspector = new LineInspector(client, this.line, this.instances);
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
    @Override
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
     * library's tokens (written by another client: malformed, binary, too long) is {@link LockInspection.State#OTHER} with no
     * holder; a token of an engine the registry does not know (stopped, another version) is an unknown holder.
     * @throws LockException if there is no connection to ZooKeeper within the connection timeout
     */
    @Override
    public LockInspection inspect(String key) {
        this.session.awaitConnection(key);
        return this.inspector.inspect(key);
    }

    /** An exclusive (write) lock: the take below with {@link Sharing#EXCLUSIVE}. */
    @Override
    public @Nullable ZooKeeperLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadlineNanos) {
        return take(key, token, leaseMillis, renewed, deadlineNanos, Sharing.EXCLUSIVE);
    }

    /**
     * Takes the key as {@code sharing} says: joins its line with a node named for the sharing and waits until
     * {@link Admission} admits it. Uncontended, any kind costs what a lock always has (create, read, delete).
     * @throws LockException at once, holding nothing, when an earlier node of the key's line asks for another
     * permit count ({@link Sharing#mismatch}); and as for every take when the store fails
     */
    @Override
    public @Nullable ZooKeeperLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadlineNanos, Sharing sharing) {
        this.session.awaitConnection(key);
        long instance = this.session.instance();
        Stat stat = new Stat();
        String node = this.line.join(key, token, sharing, stat);
        ZooKeeperLock lock = null;
        try {
            if (!this.line.awaitTurn(key, node, deadlineNanos)) {
                return null;
            }
            // A fixed lease counts from when the lock is ours, not from the node's creation: a waiter that waited
            // in line longer than its lease would otherwise lose the lock to its own timer the moment it got it.
            long obtained = System.nanoTime();
            if (this.session.instance() != instance) {
                throw new LockException("The ZooKeeper session ended while taking lock '" + key + "'");
            }
            lock = new ZooKeeperLock(this, key, node, token, this.line.fence(node, stat), instance, obtained);
            this.session.track(lock);
            if (!renewed) {
                this.timers.startLease(lock, leaseMillis);
            }
            return lock;
        }
        finally {
            if (lock == null) {
                this.line.leave(node);
            }
        }
    }

    /** Every sharing: write (exclusive) locks, read locks and semaphores of any size. */
    @Override
    public boolean supports(Sharing sharing) {
        return true;
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
                this.timers.keep(lock, keepMillis);
            }
            return ours;
        }
        if (this.session.instance() != lock.instance) {
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
        if (this.session.sessionEnded(lock)) {
            return false;
        }
        try {
            Stat stat = this.client.checkExists().forPath(lock.node);
            return stat != null && stat.getCzxid() == lock.fencingToken() && !this.session.sessionEnded(lock);
        }
        catch (Exception ex) {
            throw LockLine.failure("check", lock.key(), ex);
        }
    }

    /** Whether this lock's session is the client's current one and the client is connected to it. */
    boolean vouchesFor(ZooKeeperLock lock) {
        return this.session.vouchesFor(lock);
    }

    void forget(ZooKeeperLock lock) {
        this.session.forget(lock);
    }

    /** Nothing expires: a lock lasts as long as the session that made its node. */
    @Override
    public boolean leased() {
        return false;
    }

    /**
     * A holder's extension ({@code LockHandle.extend}; renewal never calls this, nothing here expires by itself):
     * per lock, the node checked in ZooKeeper, then the fixed lease's timer set to run out {@code leaseMillis} from
     * now (a lock held until released gets one: an extended lock has a fixed lease). NOT_HELD when the lock already
     * ended (its lease ran out, its session ended) or its node is gone; UNKNOWN while the connection is suspended.
     * @throws io.github.redislock.LockException if ZooKeeper cannot be asked
     */
    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        Extension[] extended = new Extension[locks.size()];
        for (int i = 0; i < extended.length; i++) {
            ZooKeeperLock lock = (ZooKeeperLock) locks.get(i);
            if (!lock.isValid()) {
                extended[i] = (lock.state() == ZooKeeperLock.State.HELD) ? Extension.UNKNOWN : Extension.NOT_HELD;
            }
            else {
                extended[i] = (nodeIsOurs(lock) && this.timers.restartLease(lock, leaseMillis)) ? Extension.EXTENDED
                        : Extension.NOT_HELD;
            }
        }
        return extended;
    }

    @Override
    public void listen(StoreListener listener) {
        this.session.listen(listener);
    }

    /** Per key, how many threads of this application wait for it now. */
    @Override
    public Map<String, Integer> waiting() {
        return this.line.waiting();
    }

    /** One line for the start-up log and the endpoint: the ensemble and the base path. */
    @Override
    public String describe() {
        return "ZooKeeper " + this.session.connectString() + " " + this.basePath;
    }

    /**
     * Deletes this instance's registry node, stops listening to the client and stops the timers (a kept node then
     * goes with the session); the client itself belongs to whoever made it. Closing again does nothing.
     */
    @Override
    public void close() {
        this.instances.withdraw();
        this.session.close();
        this.timers.close();
    }
}
