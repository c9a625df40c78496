package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.HolderView;
import io.github.redislock.redis.support.LockKeys;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The single-Redis store under {@link io.github.redislock.engine.LockEngine}, on the application's own Redis
 * connection factory (no client of its own). What it keeps, the engine does not: the Lua scripts
 * ({@link RedisLockProtocol}), waiting ({@link Waiting}: the local line of waiting threads, the Redis queue of
 * waiting applications, hand-offs over a {@link HandoffChannel} and local hand-overs; its Javadoc has the state
 * machine), replica acknowledgement when asked for ({@link ReplicaAcknowledgement}), extension in one round trip
 * per hash slot ({@link SlotRenewals}) and the check of a lock against Redis; the package documentation lists
 * every part. Read locks and semaphores (shares) are kept beside write locks under the same key, at no cost to a
 * write lock's path: see {@link ShareProtocol} for how a key moves between them and {@link ShareWaiting} for how a
 * share waits (in the same Redis queue as writers, in arrival order; no local hand-over). A lock passed on within
 * the application whose extension to its new holder's lease finds the key no
 * longer ours is reported to the engine as lost (detection RENEWAL). Redis errors surface as
 * {@link io.github.redislock.LockException} naming the key, with the client library's exception as cause,
 * within the connection's command timeout ({@code spring.data.redis.timeout}).
 * <p>
 * The engine over it is {@code new LockEngine(store, ...)} ({@link RedisLockClient} in one call; the
 * auto-configuration builds it with {@code redis-lock.*}). A bean of it is a {@link SmartLifecycle}: see
 * {@link #start} and {@link #stop}. Locks are still renewed and released after {@link #stop}, until {@link #close}.
 */
public final class RedisLockStore implements LockStore, SmartLifecycle {

    /** See {@link #setLocalHandoverLimit}. */
    public static final int DEFAULT_LOCAL_HANDOVER_LIMIT = 16;

    /** See {@link #setLocalHandoverTimeLimit}. */
    public static final Duration DEFAULT_LOCAL_HANDOVER_TIME_LIMIT = Duration.ofMillis(50);

    /** See {@link #setClockDrift}. */
    public static final double DEFAULT_CLOCK_DRIFT = 0.01;

    /** The Redis parts this store is made of, and the threads it made: see {@link RedisStoreParts}. */
    private final RedisStoreParts parts;

    private volatile StoreListener listener = (lock, how) -> {
    };

    private volatile LockEngineProbe probe = LockEngineProbe.NONE;

    private volatile boolean running;

    private volatile double clockDrift = DEFAULT_CLOCK_DRIFT;

    /**
     * With replicas to acknowledge, an acquisition (a lock taken free or taken over from a hand-off) counts only
     * once {@code WAIT} confirms it on that many replicas; a lock not confirmed within the timeout is released and
     * the acquisition fails with {@link io.github.redislock.LockException}.
     * @param connectionFactory the application's Redis connection factory (no client of our own is made)
     * @param keyPrefix text put in front of every key, may be empty
     * @param scheduler runs the store's housekeeping (subscription confirmations, queue entry refreshes);
     * {@code null} for a daemon thread of the store's own, stopped at {@link #close}
     * @param replicasToAcknowledge replicas that must confirm each acquisition; 0: none (plain asynchronous
     * replication)
     * @param replicationTimeout how long to wait for them, at least 1 ms when replicas are asked for
     * @throws IllegalArgumentException when replicas are asked for on a Redis Cluster connection, where one
     * {@code WAIT} cannot answer for the master of every key
     */
    public RedisLockStore(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            @Nullable ScheduledExecutorService scheduler, int replicasToAcknowledge, Duration replicationTimeout) {
        this(connectionFactory, keyPrefix, scheduler, replicasToAcknowledge, replicationTimeout,
                LockTokens.randomId(), TimedLooks.DEFAULT_MAX_UNNOTIFIED_WAIT);
    }

    /**
     * @param clientId this application's id in queues and hand-offs: random, drawn once per store
     * @param maxUnnotifiedWait how long a first waiter goes without a hand-off message before it looks at Redis
     */
    RedisLockStore(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            @Nullable ScheduledExecutorService scheduler, int replicasToAcknowledge, Duration replicationTimeout,
            String clientId, Duration maxUnnotifiedWait) {
        this.parts = new RedisStoreParts(connectionFactory, keyPrefix, scheduler, replicasToAcknowledge,
                replicationTimeout, clientId, maxUnnotifiedWait, this::extensionFailed);
    }

    @Override
    public String key(String name) {
        return LockKeys.checked(this.parts.keyPrefix, name);
    }

    /**
     * Takes the key for the request's token, waiting in the local line and the key's Redis queue until the
     * deadline; with replica acknowledgement, a lock taken in Redis counts once the replicas have it.
     */
    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadlineNanos) {
        HeldLock lock = this.parts.waiting.acquire(new LockKey(key), token, leaseMillis, renewed, deadlineNanos);
        if (lock == null) {
            return null;
        }
        lock.attach(this);
        if (this.parts.acknowledgement != null && lock.handovers == 0) {
            // Taken in Redis (free or from a hand-off): it counts once replicas have it. A lock passed on within
            // the application was confirmed when the application took it.
            this.parts.acknowledgement.confirmOrRelease(lock, (taken) -> this.parts.waiting.release(taken, false, 0));
        }
        if (lock.handedOver) {
            this.probe.takenOver(key, lock.handovers > 0);
        }
        return lock;
    }

    /**
     * A write lock as {@link #take(String, String, long, boolean, long)}; a read lock or a semaphore's permit as a
     * share of the key ({@link ShareWaiting}: its own place in the key's Redis queue, let in by Redis in arrival
     * order, readers behind a waiting writer), with replica acknowledgement as for a write lock.
     */
    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos,
            Sharing sharing) {
        if (sharing.isExclusive()) {
            return take(key, token, leaseMillis, renewed, deadlineNanos);
        }
        HeldLock share = this.parts.shares.acquire(new LockKey(key), token, leaseMillis, renewed, deadlineNanos,
                sharing);
        if (share == null) {
            return null;
        }
        share.attach(this);
        if (this.parts.acknowledgement != null) {
            this.parts.acknowledgement.confirmOrRelease(share, (taken) -> this.parts.shares.release(taken, 0));
        }
        if (share.handedOver) {
            this.probe.takenOver(key, false);
        }
        return share;
    }

    /** Write locks, read locks and semaphores of any size. */
    @Override
    public boolean supports(Sharing sharing) {
        return true;
    }

    @Override
    public boolean leased() {
        return true;
    }

    /** One {@code renew.lua} round trip per hash slot: see {@link SlotRenewals}. */
    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        return this.parts.renewals.extend(locks, leaseMillis);
    }

    /** Asks Redis whether the key still holds our value (a share: whether it is still among the key's holders). */
    boolean verify(HeldLock lock) {
        boolean held = lock.isShare() ? this.parts.shareProtocol.renew(List.of(lock), 0)[0]
                : lock.value.equals(this.parts.protocol.read(lock.key.name));
        if (held) {
            return true;
        }
        lock.markLost();
        return false;
    }

    /**
     * Releases in Redis, hands on, or passes the lock to the next thread waiting here; a lock found not ours only
     * goes to Redis (the script leaves a key holding another value alone, and takes this application out of the
     * key's queue if nobody here waits).
     */
    boolean release(HeldLock lock, long keepMillis) {
        boolean wasHeld = lock.markReleased();
        if (lock.isShare()) {
            return this.parts.shares.release(lock, wasHeld ? keepMillis : 0);
        }
        return this.parts.waiting.release(lock, wasHeld, wasHeld ? keepMillis : 0);
    }

    /** An extension of a lock passed on within this application found the key no longer ours. */
    private void extensionFailed(HeldLock lock) {
        if (lock.markLost()) {
            this.listener.lost(lock, LockLossDetection.RENEWAL);
        }
    }

    @Override
    public void listen(StoreListener listener) {
        this.listener = listener;
    }

    @Override
    public String describe() {
        return this.parts.description;
    }

    @Override
    public Map<String, Integer> waiting() {
        Map<String, Integer> waiting = this.parts.waiting.waitingThreads();
        this.parts.shares.waitingThreads().forEach((key, threads) -> waiting.merge(key, threads, Integer::sum));
        return waiting;
    }

    /** Hand-offs taken over, for the meters. */
    @Override
    public void observe(LockEngineProbe probe) {
        this.probe = probe;
    }

    /**
     * How many times in a row a lock may pass straight from a thread of this application to the next one
     * waiting here, with no Redis round trip, before a release goes to Redis and the next waiting application
     * gets its turn (default {@value #DEFAULT_LOCAL_HANDOVER_LIMIT}; 0 passes every release through Redis).
     * Each holder still gets its own, larger fencing token.
     */
    public void setLocalHandoverLimit(int limit) {
        this.parts.waiting.handoverLimit(limit);
    }

    /**
     * How long this application may keep a lock among its own threads by local hand-overs, counted from when
     * it took the key in Redis (default 50 ms): other applications wait for at most about this long more.
     */
    public void setLocalHandoverTimeLimit(Duration limit) {
        this.parts.waiting.handoverTimeLimit(limit);
    }

    /**
     * Whether a thread of this application that asks for a lock again while its application's turn lasts may be
     * passed it again in that turn, rather than waiting for the application's next turn (default {@code false}).
     * The turn stays within {@link #setLocalHandoverLimit} and {@link #setLocalHandoverTimeLimit}, and threads here
     * still get the lock in the order they asked. On a hot key with several threads per application this gives
     * several times the throughput and a shorter median wait, at the price of uneven waits: the other applications
     * wait for whole turns, up to the limits, rather than for one acquisition per thread waiting here.
     */
    public void setLocalHandoverRejoin(boolean rejoin) {
        this.parts.waiting.handoverRejoin(rejoin);
    }

    /**
     * How much faster the Redis server's clock may run than this JVM's monotonic clock, as a share of the lease
     * (default {@value #DEFAULT_CLOCK_DRIFT}, 1 %, the allowance Redlock's algorithm makes): a lock counts as held by
     * this JVM's clock for the lease less that share and 2 ms ({@link #validNanos}), so that a holder cut off from
     * Redis stops saying "held" before Redis, counting the lease on its own clock, can have let another take the key.
     * Where the two clocks may drift further apart, raise it: a holder whose clock runs slow against Redis's by more
     * than this learns of the loss late, by the difference.
     * @throws IllegalArgumentException unless it is at least 0 and below 0.5
     */
    public void setClockDrift(double drift) {
        if (!(drift >= 0 && drift < 0.5)) {
            throw new IllegalArgumentException("The clock drift allowance is a share of the lease, at least 0 and "
                    + "below 0.5 (e.g. 0.01 for 1 %), not " + drift);
        }
        this.clockDrift = drift;
    }

    /** The lease less the clock drift allowance ({@link #setClockDrift}) and 2 ms for Redis's expiry, in ns. */
    @Override
    public long validNanos(long leaseMillis) {
        long nanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        return Math.max(0, nanos - (long) Math.ceil(nanos * this.clockDrift) - TimeUnit.MILLISECONDS.toNanos(2));
    }

    /** How long this instance's registry entries outlive it (default 30 s; refreshed every third of it). */
    public void setInstanceTtl(Duration ttl) {
        this.parts.entries.ttl(ttl);
    }

    /** Who holds the key now, whichever application (see {@link HolderView}). */
    @Override
    public LockInspection inspect(String key) {
        return this.parts.holders.inspect(key);
    }

    /**
     * Names this instance in the registry from {@link #start} (at once, if started already) until {@link #stop}
     * or {@link #close}: under the engine's owner id and this store's client id, which a hand-off writes.
     */
    @Override
    public void publishInstance(InstanceInfo self, String ownerId) {
        this.parts.entries.ask(self, ownerId);
    }

    /** The registry entry, if asked for, is written (the hand-off subscription opens on the first wait). */
    @Override
    public void start() {
        this.running = true;
        this.parts.entries.start();
    }

    /**
     * Stops listening for hand-off messages, just before the connection factory stops (which closes the
     * subscription connection under us otherwise), and deletes the registry entries; a thread still waiting then
     * looks at Redis on its timer.
     */
    @Override
    public void stop() {
        this.running = false;
        this.parts.stop();
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /** One phase after Spring Data Redis's connection factories (phase 0): stopped just before them. */
    @Override
    public int getPhase() {
        return 1;
    }

    @Override
    public void close() {
        stop();
        this.parts.shutdownThreads();
    }
}
