package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockLossDetection;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.HolderView;
import io.github.redislock.redis.support.LockKeys;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The single-Redis store under {@link io.github.redislock.engine.LockEngine}, on the application's own Redis
 * connection factory (no client of its own). What it keeps, the engine does not:
 * <ul>
 * <li>{@link RedisLockProtocol}: the Lua scripts ({@code acquire.lua}, {@code unlock.lua}, {@code renew.lua})
 * over {@link LockCommands} (Boot's shared Lettuce connection, or a {@code StringRedisTemplate});</li>
 * <li>{@link Waiting}: attempts, the local line of waiting threads and the Redis queue of waiting applications,
 * hand-offs and local hand-overs within the application (its Javadoc has the state machine), over a
 * {@link HandoffChannel};</li>
 * <li>{@link ReplicaAcknowledgement}, when asked for: {@code WAIT} for replicas after each acquisition in Redis;</li>
 * <li>{@link SlotRenewals}: extension in one round trip per hash slot ({@code renew.lua} over every renewed
 * lock of the slot); and the check of a lock against Redis.</li>
 * </ul>
 * A lock passed on within the application whose extension to its new holder's lease finds the key no longer
 * ours is reported to the engine as lost (detection RENEWAL). Redis errors surface as
 * {@link io.github.redislock.LockException} naming the key, with the client library's exception as cause,
 * within the connection's command timeout ({@code spring.data.redis.timeout}).
 */
final class RedisLockStore implements LockStore {

    private final String keyPrefix;

    /** This application's id in queues and hand-offs. */
    private final String clientId;

    /** Who holds any key, read on request; never on the lock's path. */
    private final HolderView holders;

    private final boolean clustered;

    private final String description;

    /** Leaves queues and passes hand-offs on; never the renewal scheduler (see {@link Waiting}). */
    private final ExecutorService queueWork;

    private final LockProtocol protocol;

    private final HandoffChannel channel;

    private final Waiting waiting;

    private final SlotRenewals renewals;

    /** Replicas that must confirm each acquisition; {@code null}: none asked. */
    private final @Nullable ReplicaAcknowledgement acknowledgement;

    private volatile StoreListener listener = (lock, how) -> {
    };

    private volatile LockEngineProbe probe = LockEngineProbe.NONE;

    /**
     * @param scheduler runs the store's housekeeping (subscription confirmations, queue entry refreshes)
     * @param replicasToAcknowledge replicas that must confirm each acquisition; 0: none
     * @throws IllegalArgumentException when replicas are asked for on a Redis Cluster connection
     */
    RedisLockStore(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            ScheduledExecutorService scheduler, int replicasToAcknowledge, Duration replicationTimeout) {
        this.clustered = ConnectionKind.isCluster(connectionFactory);
        if (replicasToAcknowledge > 0 && this.clustered) {
            throw new IllegalArgumentException("Replica acknowledgement works on a standalone or Sentinel "
                    + "connection, not on a Redis Cluster connection");
        }
        this.keyPrefix = LockKeys.checkedPrefix((keyPrefix != null) ? keyPrefix : "");
        boolean lettuce = ConnectionKind.isLettuce(connectionFactory);
        this.description = "Redis " + (this.clustered ? "Cluster" : "standalone or Sentinel") + " ("
                + (lettuce ? "Lettuce" : connectionFactory.getClass().getSimpleName()) + ")";
        LockCommands commands = ConnectionKind.commandsFor(connectionFactory);
        this.acknowledgement = (replicasToAcknowledge > 0)
                ? new ReplicaAcknowledgement(commands, replicasToAcknowledge, replicationTimeout) : null;
        this.clientId = LockTokens.randomId();
        this.holders = HolderView.forRedis(connectionFactory, this.keyPrefix);
        // Messages arrive only once a waiter has subscribed, after construction.
        this.channel = new HandoffChannel(connectionFactory, commands, this.clustered, lettuce, this.keyPrefix,
                this.clientId, scheduler, this::handedOver, this::subscribed);
        this.protocol = new RedisLockProtocol(commands, this.channel, scheduler);
        this.queueWork = ConnectionKind.newQueueWorker();
        this.waiting = new Waiting(this.protocol, this.channel, this.clientId, this.queueWork, this::extensionFailed);
        this.renewals = new SlotRenewals(this.protocol, this.clustered);
    }

    @Override
    public String key(String name) {
        return LockKeys.checked(this.keyPrefix, name);
    }

    /**
     * Takes the key for the request's token, waiting in the local line and the key's Redis queue until the
     * deadline; with replica acknowledgement, a lock taken in Redis counts once the replicas have it.
     */
    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadlineNanos) {
        HeldLock lock = this.waiting.acquire(new LockKey(key), token, leaseMillis, renewed, deadlineNanos);
        if (lock == null) {
            return null;
        }
        lock.attach(this);
        if (this.acknowledgement != null && lock.handovers == 0) {
            // Taken in Redis (free or from a hand-off): it counts once replicas have it. A lock passed on within
            // the application was confirmed when the application took it.
            confirmOrRelease(lock);
        }
        if (lock.handedOver) {
            this.probe.takenOver(key, lock.handovers > 0);
        }
        return lock;
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
                this.waiting.release(lock, false, 0);
            }
            catch (RuntimeException suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
    }

    @Override
    public boolean leased() {
        return true;
    }

    /** One {@code renew.lua} round trip per hash slot: see {@link SlotRenewals}. */
    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        return this.renewals.extend(locks, leaseMillis);
    }

    /** Asks Redis whether the key still holds our value. */
    boolean verify(HeldLock lock) {
        if (lock.value.equals(this.protocol.read(lock.key.name))) {
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
        return this.waiting.release(lock, wasHeld, wasHeld ? keepMillis : 0);
    }

    /** An extension of a lock passed on within this application found the key no longer ours. */
    private void extensionFailed(HeldLock lock) {
        if (lock.markLost()) {
            this.listener.lost(lock, LockLossDetection.RENEWAL);
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

    @Override
    public void listen(StoreListener listener) {
        this.listener = listener;
    }

    @Override
    public String describe() {
        return this.description;
    }

    @Override
    public Map<String, Integer> waiting() {
        return this.waiting.waitingThreads();
    }

    void observe(LockEngineProbe probe) {
        this.probe = probe;
    }

    void handoverLimit(int limit) {
        this.waiting.handoverLimit(limit);
    }

    void handoverTimeLimit(Duration limit) {
        this.waiting.handoverTimeLimit(limit);
    }

    /** This application's id in queues and hand-offs. */
    String clientId() {
        return this.clientId;
    }

    /** Tests: the protocol component. */
    LockProtocol protocol() {
        return this.protocol;
    }

    /** Tests: the waiting component. */
    Waiting waitingComponent() {
        return this.waiting;
    }

    /** Who holds the key now, whichever application (see {@link HolderView}). */
    @Override
    public LockInspection inspect(String key) {
        return this.holders.inspect(key);
    }

    /**
     * Names this instance in the registry until {@link #stopListening} or {@link #close}: under the engine's token
     * id and this store's client id, which a hand-off writes.
     */
    void publishInstance(InstanceInfo self, String tokenId, Duration ttl) {
        this.holders.registry().publish(self, List.of(tokenId, this.clientId), ttl);
    }

    /** Stops listening for hand-off messages and deletes the registry entries (the application context is closing). */
    void stopListening() {
        this.holders.registry().withdraw();
        this.channel.close();
    }

    @Override
    public void close() {
        this.holders.registry().withdraw();
        this.channel.close();
        this.queueWork.shutdown();
    }
}
