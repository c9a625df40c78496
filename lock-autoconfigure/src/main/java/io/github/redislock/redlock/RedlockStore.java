package io.github.redislock.redlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.DaemonThreads;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.HolderView;
import io.github.redislock.redis.support.LockKeys;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redlock store under {@link io.github.redislock.engine.LockEngine}: takes one key on a majority of the
 * nodes with its fencing token (each attempt is a {@link RedlockAttempt}), waits by jittered retries and counts
 * the threads waiting, and extends (a round per lock on every node, the locks' rounds in parallel, each lock
 * answered on its own); its handles check and release. What that guarantees, and its limits, is in the package
 * documentation. The engine over it is {@code new LockEngine(store, ...)} ({@link RedlockClient} in one call; the
 * auto-configuration builds it when {@code redis-lock.redlock.nodes} is set).
 */
public final class RedlockStore implements LockStore {

    private static final Log logger = LogFactory.getLog(RedlockStore.class);

    private final RedlockNode[] nodes;

    private final int quorum;

    private final String keyPrefix;

    /** Runs the node calls that block (Jedis; a Lettuce node until its shared connection is known). */
    private final ExecutorService calls;

    /**
     * Tokens: one random id for the store and a sequence, so that every attempt's token is new and its holder can
     * be named from it (see {@link #inspect}).
     */
    private final LockTokens tokens = new LockTokens();

    /** Who holds any key, as a majority of the nodes says; never on the lock's path. */
    private final HolderView holders;

    /** Attempts until the deadline, and the threads waiting. */
    private final RedlockWaiting waits;

    private volatile Duration instanceTtl = Duration.ofSeconds(30);

    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * @param nodes one connection factory per independent master, at least 3
     * @param keyPrefix text put in front of every key, may be empty
     * @throws IllegalArgumentException with fewer than 3 nodes
     */
    public RedlockStore(List<? extends RedisConnectionFactory> nodes, @Nullable String keyPrefix) {
        this(nodes, keyPrefix, CallSlots.STALL_NANOS);
    }

    /** With another stall time than {@link CallSlots#STALL_NANOS}: for tests that hold a node full by hand. */
    RedlockStore(List<? extends RedisConnectionFactory> nodes, @Nullable String keyPrefix, long stallNanos) {
        if (nodes.size() < 3) {
            throw new IllegalArgumentException("Redlock needs at least 3 independent Redis masters, not "
                    + nodes.size());
        }
        this.keyPrefix = LockKeys.checkedPrefix((keyPrefix != null) ? keyPrefix : "");
        // Bounded: each node has at most CallSlots.MAX calls on their way (a stalled node's
        // calls fail past that), so the pool needs no more threads than that for every node; twice that lets a
        // thread that just ended a call finish returning to the pool. A thread is made only when none is idle: on
        // Lettuce's shared connections, only to look the connection up (calls do not block there).
        this.calls = new ThreadPoolExecutor(0, 2 * nodes.size() * CallSlots.MAX, 60,
                TimeUnit.SECONDS, new SynchronousQueue<>(), DaemonThreads.named("redlock-call"));
        this.nodes = new RedlockNode[nodes.size()];
        for (int i = 0; i < this.nodes.length; i++) {
            this.nodes[i] = new RedlockNode("node " + i, nodes.get(i), this.calls, stallNanos);
        }
        this.quorum = nodes.size() / 2 + 1;
        this.holders = HolderView.forNodes(nodes, this.keyPrefix, RedlockNode::fenceKey);
        this.waits = new RedlockWaiting(this.nodes, this.quorum, this.tokens,
                new RedlockAttempt(this.nodes, this.quorum), this.keyPrefix);
    }

    /** The prefixed key, checked as on a single Redis. */
    @Override
    public String key(String name) {
        return LockKeys.checked(this.keyPrefix, name);
    }

    /**
     * A write lock: attempts until one takes a majority or the deadline passes, 20–70 ms apart, each with a fresh
     * random token of its own (the request's is not used); see {@link RedlockWaiting}.
     * @throws LockException if fewer than a majority of nodes answered the last attempt, a node holds a larger
     * fencing token than the majority reported or has the key as a semaphore's, or the thread is interrupted
     */
    @Override
    public @Nullable RedlockHandle take(String key, String requestToken, long leaseMillis, boolean renewed,
            long deadline) {
        return this.waits.take(this, key, leaseMillis, deadline, Sharing.EXCLUSIVE);
    }

    /**
     * A write lock as above, or a share: a read lock held where a majority of the nodes let it in beside other
     * readers, or a semaphore's permit held in one of its N slots on a majority (so that no more than N holders
     * can count at once, however the nodes' holders differ); waiting by retries, a waiting writer queued on the
     * nodes so that readers arriving later wait for it. See the package documentation.
     */
    @Override
    public @Nullable RedlockHandle take(String key, String requestToken, long leaseMillis, boolean renewed,
            long deadline, Sharing sharing) {
        return this.waits.take(this, key, leaseMillis, deadline, sharing);
    }

    /** Write locks, read locks and semaphores of any size. */
    @Override
    public boolean supports(Sharing sharing) {
        return true;
    }

    /** Threads waiting now, per key: from their first attempt that found the key taken until take returns. */
    @Override
    public Map<String, Integer> waiting() {
        return this.waits.waiting();
    }

    /** The lease less a clock drift allowance of 1% plus 2 ms, in ns. */
    static long validityNanos(long leaseMillis) {
        return TimeUnit.MILLISECONDS.toNanos(leaseMillis - leaseMillis / 100 - 2);
    }

    @Override
    public boolean leased() {
        return true;
    }

    /** A lock counts as held for its validity: the lease less the clock drift allowance. */
    @Override
    public long validNanos(long leaseMillis) {
        return validityNanos(leaseMillis);
    }

    /**
     * Extends each lock on every node that took it, the locks' rounds in parallel (a few at a time, so that no
     * node gets more calls at once than it may have on their way). Per lock, on its own round:
     * {@link Extension#EXTENDED} when a majority extended it within the validity counted from when its round
     * began; {@link Extension#NOT_HELD} when more nodes answered that they no longer hold it than a majority can
     * spare; otherwise {@link Extension#UNKNOWN} (nodes unreachable or slow, or the majority came too late).
     * @throws LockException if no lock's round was decided (every one unknown, for want of answers): the store
     * could not be asked
     */
    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        Extension[] extended = new Extension[locks.size()];
        int batch = Math.max(1, CallSlots.MAX / 2);
        LockException unknown = null;
        boolean decided = false;
        for (int from = 0; from < locks.size(); from += batch) {
            int to = Math.min(locks.size(), from + batch);
            long start = System.nanoTime();
            long validUntil = start + validityNanos(leaseMillis);
            List<Round<Boolean>> rounds = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                rounds.add(((RedlockHandle) locks.get(i)).sendExtension(leaseMillis));
            }
            for (int i = from; i < to; i++) {
                Round<Boolean> round = rounds.get(i - from);
                try {
                    round.await(validUntil, false);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new LockException("Interrupted while extending Redlock leases", ex);
                }
                extended[i] = outcome(round, validUntil);
                if (extended[i] == Extension.UNKNOWN) {
                    LockException why = new LockException("Only " + round.successes() + " of " + this.nodes.length
                            + " Redlock nodes extended lock '" + locks.get(i).key() + "' in time and "
                            + round.refused() + " refused; a majority (" + this.quorum
                            + ") is needed either way", round.firstError());
                    logger.debug(why.getMessage(), why);
                    unknown = (unknown != null) ? unknown : why;
                }
                else {
                    decided = true;
                }
            }
        }
        if (!decided && unknown != null) {
            throw unknown;
        }
        return extended;
    }

    /** What one lock's extension round says, once it is decided or its validity has passed. */
    private Extension outcome(Round<Boolean> round, long validUntil) {
        if (round.successes() >= this.quorum && System.nanoTime() - validUntil < 0) {
            return Extension.EXTENDED;
        }
        // Nodes that answered without extending: the key is gone there (expired, released, someone else's).
        return (round.refused() > this.nodes.length - this.quorum) ? Extension.NOT_HELD : Extension.UNKNOWN;
    }

    /** Redlock notices no loss by itself: renewal, release and checks find them. */
    @Override
    public void listen(StoreListener listener) {
    }

    @Override
    public String describe() {
        return "Redlock over " + this.nodes.length + " masters";
    }

    RedlockNode[] nodes() {
        return this.nodes;
    }

    int quorum() {
        return this.quorum;
    }

    /** Who holds the key now, as a majority of the nodes says (see {@link HolderView}). */
    @Override
    public LockInspection inspect(String key) {
        return this.holders.inspect(key);
    }

    /** How long this instance's registry entries outlive it (default 30 s; refreshed every third of it). */
    public void setInstanceTtl(Duration ttl) {
        this.instanceTtl = ttl;
    }

    /**
     * Names this instance in the registry on every node, from now until {@link #close} (see {@link HolderView}),
     * under the id of this store's own tokens: a Redlock value carries an attempt's token, never the engine's.
     */
    @Override
    public void publishInstance(InstanceInfo self, String ownerId) {
        this.holders.registry().publish(self, List.of(this.tokens.id()), this.instanceTtl);
    }

    /**
     * Stops the node calls and deletes this instance's registry entries; held locks then expire with their lease.
     * Closing again does nothing.
     */
    @Override
    public void close() {
        if (this.closed.compareAndSet(false, true)) {
            this.holders.registry().withdraw();
            this.calls.shutdownNow();
        }
    }
}
