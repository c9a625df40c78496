package io.github.redislock.redis;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockEngineView;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspector;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.support.HolderView;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Locks on one Redis (standalone, Sentinel or Cluster), on the application's own Redis connection factory (no
 * client of its own): the store-neutral {@link LockEngine} over the single-Redis store ({@link RedisLockStore}).
 * <p>
 * The engine gives every lock reentrancy (the holding thread asking again gets a nested handle on the same Redis
 * lock, other threads are never let in by it), multi-key all-or-nothing, renewal (one batched round trip, per hash
 * slot on a cluster, every third of the lease for all renewed locks), loss signalling (a WARN and the
 * {@link LockLossListener}), holdAtLeast and the endpoint's snapshot. The store keeps what is Redis: the Lua
 * scripts, the local line of waiting threads and the Redis queue of waiting applications, hand-offs and local
 * hand-overs, replica acknowledgement.
 * <p>
 * holdAtLeast counts from this JVM's monotonic clock ({@link System#nanoTime()}) at the moment the reply that
 * made the holder arrived (or the lock was passed to it here), not from Redis time: that moment is after Redis
 * took the key, and the keep that the release asks for is counted by Redis from when the release runs, after it
 * was sent, so the key stays at least the minimum after Redis took it (longer by about a round trip). Redis
 * time would need a read of the clock on every acquisition path (hand-offs and local hand-overs carry fences
 * that are not Redis time) and cannot be compared with the local clock anyway; only the two clocks' rates must
 * agree, as they must for leases.
 * Redis errors surface as {@link LockException} naming the key, with the client library's exception as
 * cause, within the connection's command timeout ({@code spring.data.redis.timeout}).
 */
public final class RedisLockClient
        implements LockProvider, LockInspector, LockEngineView, SmartLifecycle, AutoCloseable {

    /** See {@link #setLocalHandoverLimit}. */
    public static final int DEFAULT_LOCAL_HANDOVER_LIMIT = 16;

    /** See {@link #setLocalHandoverTimeLimit}. */
    public static final Duration DEFAULT_LOCAL_HANDOVER_TIME_LIMIT = Duration.ofMillis(50);

    private final @Nullable ScheduledExecutorService ownScheduler;

    private final RedisLockStore store;

    private final LockEngine engine;

    /** This instance in the registry, once {@link #publishInstance} asked for it. */
    private volatile @Nullable InstanceInfo instance;

    private volatile Duration instanceTtl = Duration.ofSeconds(30);

    private volatile boolean running;

    /** A client with a 30 s renewed lease and no loss listener. */
    public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix) {
        this(connectionFactory, keyPrefix, Duration.ofSeconds(30), LockLossListener.NONE, null);
    }

    /**
     * @param connectionFactory the application's Redis connection factory (no client of our own is made)
     * @param keyPrefix text put in front of every key, may be empty
     * @param renewedLease the lease of locks kept alive by renewal; they are renewed every third of it
     * @param lossListener told when a held lock is found lost
     * @param scheduler runs renewals and other housekeeping; {@code null} for a daemon thread of the client's own
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            Duration renewedLease, LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler) {
        this(connectionFactory, keyPrefix, renewedLease, lossListener, scheduler, 0, Duration.ZERO);
    }

    /**
     * A client whose acquisitions (a lock taken free or taken over from a hand-off) count only once
     * {@code WAIT} confirms them on the given number of replicas; a lock not confirmed within the timeout is
     * released and the acquisition fails with {@link LockException}.
     * @param replicasToAcknowledge replicas that must confirm each acquisition; 0: none (plain asynchronous
     * replication)
     * @param replicationTimeout how long to wait for them, at least 1 ms when replicas are asked for
     * @throws IllegalArgumentException when replicas are asked for on a Redis Cluster connection, where one
     * {@code WAIT} cannot answer for the master of every key
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            Duration renewedLease, LockLossListener lossListener, @Nullable ScheduledExecutorService scheduler,
            int replicasToAcknowledge, Duration replicationTimeout) {
        ScheduledExecutorService own = (scheduler == null) ? ConnectionKind.newScheduler() : null;
        ScheduledExecutorService executor = (scheduler != null) ? scheduler : own;
        try {
            this.store = new RedisLockStore(connectionFactory, keyPrefix, executor, replicasToAcknowledge,
                    replicationTimeout);
        }
        catch (RuntimeException ex) {
            if (own != null) {
                own.shutdownNow();
            }
            throw ex;
        }
        this.ownScheduler = own;
        this.engine = new LockEngine(this.store, renewedLease, lossListener, executor);
    }

    /**
     * Takes every key of the request, one by one in the request's order, within its one wait time; all or
     * nothing.
     * @throws LockNotAcquiredException if a key stayed taken for the whole wait time (nothing is then held)
     * @throws LockException if Redis fails, a key is too long, or the thread is interrupted (nothing is then held)
     */
    @Override
    public LockHandle acquire(LockRequest request) {
        return this.engine.acquire(request);
    }

    /**
     * How many times in a row a lock may pass straight from a thread of this application to the next one
     * waiting here, with no Redis round trip, before a release goes to Redis and the next waiting application
     * gets its turn (default {@value #DEFAULT_LOCAL_HANDOVER_LIMIT}; 0 passes every release through Redis).
     * Each holder still gets its own, larger fencing token.
     */
    public void setLocalHandoverLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("The local hand-over limit must not be negative, was " + limit);
        }
        this.store.handoverLimit(limit);
    }

    /**
     * How long this application may keep a lock among its own threads by local hand-overs, counted from when
     * it took the key in Redis (default 50 ms): other applications wait for at most about this long more.
     */
    public void setLocalHandoverTimeLimit(Duration limit) {
        if (limit.isNegative()) {
            throw new IllegalArgumentException("The local hand-over time limit must not be negative, was " + limit);
        }
        this.store.handoverTimeLimit(limit);
    }

    /** How often renewed locks are renewed. */
    public Duration renewalPeriod() {
        return this.engine.renewalPeriod();
    }

    /** Runs one renewal round now (tests, and callers that know a long pause just ended). */
    public void renewNow() {
        this.engine.renewNow();
    }

    /**
     * What this application holds and waits for now, and how renewal fares: a read-only snapshot for the
     * Actuator endpoint and gauges. It takes no lock on the hot path and sends nothing to Redis.
     */
    @Override
    public LockEngineState state() {
        return this.engine.state();
    }

    /** Tells the probe what only the engine sees (hand-offs, failed renewals); internal, for metrics. */
    @Override
    public void observe(LockEngineProbe probe) {
        this.engine.observe(probe);
        this.store.observe(probe);
    }

    /** This application's id in queues and hand-offs. */
    String clientId() {
        return this.store.clientId();
    }

    /** Tests: the protocol component. */
    LockProtocol protocol() {
        return this.store.protocol();
    }

    /** Tests: the waiting component. */
    Waiting waiting() {
        return this.store.waitingComponent();
    }

    /**
     * Who holds the lock of this name now, whichever application: read from Redis (see {@link HolderView}).
     * @throws LockException if the name makes a key the store refuses, or Redis cannot be reached
     */
    @Override
    public LockInspection inspect(String name) {
        return this.engine.inspect(name);
    }

    /**
     * Names this instance in the instance registry from {@link #start} until {@link #stop}, so that the holder
     * view of any application can tell who holds the keys this one holds; call before {@link #start}.
     * @param self this instance
     * @param ttl how long its entry outlives the instance (refreshed every third of it)
     */
    public void publishInstance(InstanceInfo self, Duration ttl) {
        this.instance = self;
        this.instanceTtl = ttl;
    }

    /** Tests: the random id that begins this client's tokens. */
    String tokenId() {
        return this.engine.ownerId();
    }

    /**
     * As a bean: the hand-off subscription opens on the first wait; this instance's registry entry, if asked for,
     * is written now.
     */
    @Override
    public void start() {
        this.running = true;
        InstanceInfo self = this.instance;
        if (self != null) {
            this.store.publishInstance(self, this.engine.ownerId(), this.instanceTtl);
        }
    }

    /**
     * As a bean, when the application context closes: stops listening for hand-off messages, just before the
     * connection factory stops (which closes our subscription connection under us otherwise). Locks are still
     * renewed and released until {@link #close}; a thread still waiting looks at Redis on its timer.
     */
    @Override
    public void stop() {
        this.running = false;
        this.store.stopListening();
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

    /** Stops renewing; held locks then expire with their lease. */
    @Override
    public void close() {
        this.running = false;
        this.engine.close();
        if (this.ownScheduler != null) {
            this.ownScheduler.shutdownNow();
        }
    }
}
