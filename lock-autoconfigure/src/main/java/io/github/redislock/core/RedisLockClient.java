package io.github.redislock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspector;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.MultiLockHandle;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis lock engine of one application: takes, renews and releases locks on the application's own
 * Redis connection factory (no client of its own). It knows keys, tokens, fencing tokens and leases, and
 * nothing of annotations or expressions.
 * <p>
 * This class wires the parts and keeps what is per application: which keys its threads hold (reentrancy:
 * the holding thread asking again gets a nested handle on the same Redis lock, other threads are never let
 * in by it) and multi-key all-or-nothing. The parts:
 * <ul>
 * <li>{@link RedisLockProtocol}: the Lua scripts ({@code acquire.lua}, {@code unlock.lua}, {@code renew.lua})
 * over {@link LockCommands} (Boot's shared Lettuce connection, or a {@code StringRedisTemplate});</li>
 * <li>{@link Waiting}: attempts, the local line of waiting threads and the Redis queue of waiting
 * applications, hand-offs (its Javadoc has the state machine), over a {@link HandoffChannel};</li>
 * <li>{@link LeaseRenewer}: one batched renewal round trip per third of the lease for all renewed locks;</li>
 * <li>{@link LossSignal}: a WARN and the {@link LockLossListener} when a held lock turns out lost;</li>
 * <li>{@link ReplicaAcknowledgement}, when asked for: {@code WAIT} for replicas after each acquisition;</li>
 * <li>{@link KeptLocks}: the keys a release kept in Redis because their holdAtLeast had not passed (its Javadoc
 * has the state machine), for the endpoint.</li>
 * </ul>
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
public final class RedisLockClient implements LockProvider, LockInspector, SmartLifecycle, AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisLockClient.class);

    /** See {@link #setLocalHandoverLimit}. */
    public static final int DEFAULT_LOCAL_HANDOVER_LIMIT = 16;

    /** See {@link #setLocalHandoverTimeLimit}. */
    public static final Duration DEFAULT_LOCAL_HANDOVER_TIME_LIMIT = Duration.ofMillis(50);

    private final String keyPrefix;

    private final long renewedLeaseMillis;

    private final LockTokens tokens = new LockTokens();

    /** Keys this application holds now, for reentrancy. */
    private final Map<String, HeldLock> held = new ConcurrentHashMap<>();

    /** Keys kept in Redis after their work ended (holdAtLeast), for the endpoint. */
    private final KeptLocks kept = new KeptLocks();

    /** This application's id in queues and hand-offs. */
    private final String clientId;

    private final @Nullable ScheduledExecutorService ownScheduler;

    /** Leaves queues and passes hand-offs on; never the renewal scheduler (see {@link Waiting}). */
    private final ExecutorService queueWork;

    private final LockProtocol protocol;

    private final HandoffChannel channel;

    private final Waiting waiting;

    private final LeaseRenewer renewer;

    private final LossSignal loss;

    /** Replicas that must confirm each acquisition; {@code null}: none asked. */
    private final @Nullable ReplicaAcknowledgement acknowledgement;

    /** Who holds any key, read on request; never on the lock's path. */
    private final HolderView holders;

    /** This instance in the registry, once {@link #publishInstance} asked for it. */
    private volatile @Nullable InstanceInfo instance;

    private volatile Duration instanceTtl = Duration.ofSeconds(30);

    private volatile boolean running;

    private volatile LockEngineProbe probe = LockEngineProbe.NONE;

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
        if (replicasToAcknowledge > 0 && ConnectionKind.isCluster(connectionFactory)) {
            throw new IllegalArgumentException("Replica acknowledgement works on a standalone or Sentinel "
                    + "connection, not on a Redis Cluster connection");
        }
        this.keyPrefix = LockKeys.checkedPrefix((keyPrefix != null) ? keyPrefix : "");
        this.renewedLeaseMillis = renewedLease.toMillis();
        this.ownScheduler = (scheduler == null) ? ConnectionKind.newScheduler() : null;
        ScheduledExecutorService executor = (scheduler != null) ? scheduler : this.ownScheduler;
        boolean clustered = ConnectionKind.isCluster(connectionFactory);
        LockCommands commands = ConnectionKind.commandsFor(connectionFactory);
        this.acknowledgement = (replicasToAcknowledge > 0)
                ? new ReplicaAcknowledgement(commands, replicasToAcknowledge, replicationTimeout) : null;
        this.clientId = LockTokens.randomId();
        // Messages arrive only once a waiter has subscribed, after construction.
        this.channel = new HandoffChannel(connectionFactory, commands, clustered,
                ConnectionKind.isLettuce(connectionFactory), this.keyPrefix, this.clientId, executor, this::handedOver,
                this::subscribed);
        this.protocol = new RedisLockProtocol(commands, this.channel, executor);
        this.loss = new LossSignal(lossListener);
        this.queueWork = ConnectionKind.newQueueWorker();
        this.waiting = new Waiting(this.protocol, this.channel, this.clientId, this.queueWork, this::extensionFailed);
        this.renewer = new LeaseRenewer(this.protocol, this.loss, executor, this.renewedLeaseMillis, clustered);
        this.holders = HolderView.forRedis(connectionFactory, this.keyPrefix);
    }

    /**
     * Takes every key of the request, one by one in the request's order, within its one wait time; all or
     * nothing.
     * @throws LockNotAcquiredException if a key stayed taken for the whole wait time (nothing is then held)
     * @throws LockException if Redis fails, a key is too long, or the thread is interrupted (nothing is then held)
     */
    @Override
    public LockHandle acquire(LockRequest request) {
        long start = System.nanoTime();
        List<String> names = request.keys();
        LockKey[] keys = new LockKey[names.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new LockKey(LockKeys.checked(this.keyPrefix, names.get(i)));
        }
        if (Thread.currentThread().isInterrupted()) {
            // Never send an attempt whose answer nobody would wait for.
            throw new LockException("Interrupted before acquiring lock " + Arrays.toString(keys));
        }
        // Compared as deadline - now, which stays right even when the sum wraps (a wait of Long.MAX_VALUE ns).
        long deadline = start + request.waitNanos();
        Duration fixedLease = request.leaseTime();
        long lease = (fixedLease != null) ? fixedLease.toMillis() : this.renewedLeaseMillis;
        String token = this.tokens.next();
        boolean reentrant = request.isReentrant();
        long holdAtLeast = request.holdAtLeastNanos();
        if (keys.length == 1) {
            RedisLockHandle handle = acquireOne(keys[0], token, lease, fixedLease == null, reentrant, deadline,
                    holdAtLeast);
            if (handle == null) {
                throw notAcquired(keys, start);
            }
            return handle;
        }
        List<RedisLockHandle> taken = new ArrayList<>(keys.length);
        try {
            for (LockKey key : keys) {
                RedisLockHandle handle = acquireOne(key, token, lease, fixedLease == null, reentrant, deadline,
                        holdAtLeast);
                if (handle == null) {
                    throw notAcquired(keys, start);
                }
                taken.add(handle);
            }
        }
        catch (Throwable ex) {
            // All or nothing, whatever went wrong (an Error too): release what was taken.
            releaseAll(taken, ex);
            throw ex;
        }
        return new MultiLockHandle(taken);
    }

    private static LockNotAcquiredException notAcquired(LockKey[] keys, long start) {
        List<String> names = new ArrayList<>(keys.length);
        for (LockKey key : keys) {
            names.add(key.name);
        }
        return new LockNotAcquiredException(names, Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * One key. With {@code holdAtLeastNanos} above 0 the key is kept at least that long after it was taken (for
     * a nested acquisition: after the outermost one took it; see {@link KeptLocks}).
     */
    private @Nullable RedisLockHandle acquireOne(LockKey key, String token, long leaseMillis, boolean renew,
            boolean reentrant, long deadline, long holdAtLeastNanos) {
        if (reentrant) {
            HeldLock mine = this.held.get(key.name);
            if (mine != null && mine.enterAgain()) {
                mine.holdAtLeast(holdAtLeastNanos);
                return new RedisLockHandle(this, mine);
            }
        }
        HeldLock lock = this.waiting.acquire(key, token, leaseMillis, renew, deadline);
        if (lock == null) {
            return null;
        }
        lock.holdAtLeast(holdAtLeastNanos);
        this.kept.taken(key.name);
        if (this.acknowledgement != null && lock.handovers == 0) {
            // Taken in Redis (free or from a hand-off): it counts once replicas have it. A lock passed on within
            // the application was confirmed when the application took it.
            confirmOrRelease(lock);
        }
        if (!reentrant) {
            lock.ownedByNoThread();
        }
        this.held.put(key.name, lock);
        if (lock.handedOver) {
            this.probe.takenOver(key.name, lock.handovers > 0);
        }
        if (renew) {
            this.renewer.register(lock);
        }
        return new RedisLockHandle(this, lock);
    }

    /** Replica acknowledgement of a lock just taken; not confirmed, it is released (handed on) at once. */
    private void confirmOrRelease(HeldLock lock) {
        try {
            this.acknowledgement.confirm(lock.key, lock.value, lock.leaseMillis);
        }
        catch (RuntimeException ex) {
            // Released in Redis, never passed on to a thread here: the lock did not count.
            lock.markReleased();
            try {
                this.waiting.release(lock, false);
            }
            catch (RuntimeException suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
    }

    /** A hand-off message for the key: the waiting component takes it. */
    private void handedOver(String key) {
        this.waiting.handedOver(key);
    }

    /** The hand-off channel of these keys is listened to (again): their waiters look at Redis. */
    private void subscribed(Predicate<String> keys) {
        this.waiting.lookNow(keys);
    }

    /** An extension of a lock passed on within this application found the key no longer ours. */
    private void extensionFailed(HeldLock lock) {
        if (lock.markLost()) {
            this.renewer.unregister(lock);
            this.loss.lost(lock, LockLossDetection.RENEWAL);
        }
    }

    /**
     * Ends one (possibly nested) acquisition; the last one releases the key, or keeps it in Redis for what is left
     * of its holdAtLeast (see {@link KeptLocks}).
     */
    void exit(HeldLock lock) {
        if (!lock.exitOne()) {
            return;
        }
        this.held.remove(lock.key.name, lock);
        this.renewer.unregister(lock);
        // A lock already found lost (and signalled) is released all the same: the script leaves a key holding
        // another value alone, and takes this application out of the key's queue if nobody here waits.
        boolean wasHeld = lock.markReleased();
        // holdAtLeast: what is left of the minimum is kept in Redis by the same one release script.
        long keepMillis = wasHeld ? lock.keepMillis(System.nanoTime()) : 0;
        boolean released = this.waiting.release(lock, wasHeld, keepMillis);
        if (!released && wasHeld) {
            lock.lostBeforeRelease();
            this.loss.lost(lock, LockLossDetection.RELEASE);
        }
        else if (released && keepMillis > 0) {
            this.kept.kept(lock, keepMillis, System.nanoTime());
        }
    }

    /** Asks Redis whether the key still holds our value; marks the lock lost if not. */
    boolean verify(HeldLock lock) {
        if (lock.isLost()) {
            return false;
        }
        if (lock.value.equals(this.protocol.read(lock.key.name))) {
            return true;
        }
        if (lock.markLost()) {
            this.renewer.unregister(lock);
            this.loss.lost(lock, LockLossDetection.COMMIT_CHECK);
        }
        return false;
    }

    private static void releaseAll(List<RedisLockHandle> taken, Throwable failure) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).close();
            }
            catch (LockException ex) {
                failure.addSuppressed(ex);
                logger.warn("Could not release lock '" + taken.get(i).key() + "' after a failed multi-key "
                        + "acquisition; it expires with its lease", ex);
            }
        }
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
        this.waiting.handoverLimit(limit);
    }

    /**
     * How long this application may keep a lock among its own threads by local hand-overs, counted from when
     * it took the key in Redis (default 50 ms): other applications wait for at most about this long more.
     */
    public void setLocalHandoverTimeLimit(Duration limit) {
        if (limit.isNegative()) {
            throw new IllegalArgumentException("The local hand-over time limit must not be negative, was " + limit);
        }
        this.waiting.handoverTimeLimit(limit);
    }

    /** How often renewed locks are renewed. */
    public Duration renewalPeriod() {
        return Duration.ofMillis(this.renewer.periodMillis());
    }

    /** Runs one renewal round now (tests, and callers that know a long pause just ended). */
    public void renewNow() {
        this.renewer.tick();
    }

    /**
     * What this application holds and waits for now, and how renewal fares: a read-only snapshot for the
     * Actuator endpoint and gauges. It takes no lock on the hot path and sends nothing to Redis.
     */
    public LockEngineState state() {
        long nowNanos = System.nanoTime();
        Instant now = Instant.now();
        List<LockEngineState.HeldKey> keys = new ArrayList<>(this.held.size());
        for (HeldLock lock : this.held.values()) {
            keys.add(lock.view(nowNanos, now));
        }
        keys.sort(Comparator.comparing(LockEngineState.HeldKey::key));
        return new LockEngineState(keys, this.waiting.waitingThreads(), this.renewer.health(),
                this.kept.view(nowNanos, now));
    }

    /**
     * Who holds the lock of this name now, whichever application: read from Redis (see {@link HolderView}).
     * @throws LockException if the name makes a key the engine refuses, or Redis cannot be reached
     */
    @Override
    public LockInspection inspect(String name) {
        return this.holders.inspect(LockKeys.checked(this.keyPrefix, name));
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

    /** Tells the probe what only the engine sees (hand-offs, failed renewals); internal, for metrics. */
    public void observe(LockEngineProbe probe) {
        this.probe = probe;
        this.renewer.probe(probe);
    }

    /** This application's id in queues and hand-offs. */
    String clientId() {
        return this.clientId;
    }

    /** Tests: this client's tokens. */
    LockTokens tokens() {
        return this.tokens;
    }

    /** Tests: the protocol component. */
    LockProtocol protocol() {
        return this.protocol;
    }

    /** Tests: the waiting component. */
    Waiting waiting() {
        return this.waiting;
    }

    /** As a bean: nothing to start, the hand-off subscription opens on the first wait. */
    @Override
    public void start() {
        this.running = true;
        InstanceInfo self = this.instance;
        if (self != null) {
            // Its tokens begin with the one id, and a hand-off writes its client id.
            this.holders.registry().publish(self, List.of(this.tokens.id(), this.clientId), this.instanceTtl);
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
        this.holders.registry().withdraw();
        this.channel.close();
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
        this.holders.registry().withdraw();
        this.renewer.close();
        this.channel.close();
        this.queueWork.shutdown();
        if (this.ownScheduler != null) {
            this.ownScheduler.shutdownNow();
        }
    }
}
