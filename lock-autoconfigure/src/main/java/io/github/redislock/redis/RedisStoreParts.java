package io.github.redislock.redis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

import io.github.redislock.redis.support.HolderView;
import io.github.redislock.redis.support.LockKeys;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What one {@link RedisLockStore} is made of, built from its settings over the application's connection factory and
 * shut down together: the commands for the connection's kind, the hand-off channel and the protocol over them, waiting
 * (for write locks, and for shares), the per-slot renewals, replica acknowledgement when asked for, the holder view
 * with this instance's registry entries, and the threads the store makes for itself. The store keeps the engine-facing
 * operations and its lifecycle as a bean; this class, how the parts are wired to each other.
 */
final class RedisStoreParts {

    final String keyPrefix;

    /** What {@link RedisLockStore#describe} says, e.g. {@code Redis standalone or Sentinel (Lettuce)}. */
    final String description;

    /** Who holds any key, read on request; never on the lock's path. */
    final HolderView holders;

    /** This instance in the registry, written while the store runs. */
    final InstanceEntries entries;

    final LockProtocol protocol;

    final HandoffChannel channel;

    final Waiting waiting;

    /** Read locks and a semaphore's permits: their scripts, waiting and releases. */
    final ShareWaiting shares;

    final ShareProtocol shareProtocol;

    final SlotRenewals renewals;

    /** Replicas that must confirm each acquisition; {@code null}: none asked. */
    final @Nullable ReplicaAcknowledgement acknowledgement;

    /** Leaves queues and passes hand-offs on; never the renewal scheduler (see {@link Waiting}). */
    private final ExecutorService queueWork;

    /** The housekeeping thread made here, when the store was given no scheduler. */
    private final @Nullable ScheduledExecutorService ownScheduler;

    /**
     * @param extensionFailed told when an extension of a lock passed on within this application finds the key no
     * longer ours
     * @throws IllegalArgumentException when replicas are asked for on a Redis Cluster connection
     * @see RedisLockStore#RedisLockStore(RedisConnectionFactory, String, ScheduledExecutorService, int, Duration)
     */
    RedisStoreParts(RedisConnectionFactory connectionFactory, @Nullable String keyPrefix,
            @Nullable ScheduledExecutorService scheduler, int replicasToAcknowledge, Duration replicationTimeout,
            String clientId, Duration maxUnnotifiedWait, Consumer<HeldLock> extensionFailed) {
        boolean clustered = ConnectionKind.isCluster(connectionFactory);
        if (replicasToAcknowledge > 0 && clustered) {
            throw new IllegalArgumentException("Replica acknowledgement works on a standalone or Sentinel "
                    + "connection, not on a Redis Cluster connection");
        }
        this.keyPrefix = LockKeys.checkedPrefix((keyPrefix != null) ? keyPrefix : "");
        boolean lettuce = ConnectionKind.isLettuce(connectionFactory);
        this.description = "Redis " + (clustered ? "Cluster" : "standalone or Sentinel") + " ("
                + (lettuce ? "Lettuce" : connectionFactory.getClass().getSimpleName()) + ")";
        LockCommands commands = ConnectionKind.commandsFor(connectionFactory);
        this.acknowledgement = (replicasToAcknowledge > 0)
                ? new ReplicaAcknowledgement(commands, replicasToAcknowledge, replicationTimeout) : null;
        this.holders = HolderView.forRedis(connectionFactory, this.keyPrefix);
        this.entries = new InstanceEntries(this.holders.registry(), clientId);
        this.ownScheduler = (scheduler == null) ? ConnectionKind.newScheduler() : null;
        ScheduledExecutorService housekeeping = (scheduler != null) ? scheduler : this.ownScheduler;
        // Messages arrive only once a waiter has subscribed, after construction.
        this.channel = new HandoffChannel(connectionFactory, commands, clustered, lettuce, this.keyPrefix, clientId,
                housekeeping, this::handedOver, this::subscribed);
        this.protocol = new RedisLockProtocol(commands, this.channel, housekeeping);
        this.queueWork = ConnectionKind.newQueueWorker();
        this.waiting = new Waiting(this.protocol, this.channel, clientId, this.queueWork, extensionFailed);
        this.waiting.maxUnnotifiedWait(maxUnnotifiedWait);
        this.shareProtocol = new ShareProtocol(commands, housekeeping);
        this.shares = new ShareWaiting(this.shareProtocol, this.channel, clientId, this.queueWork);
        this.shares.maxUnnotifiedWait(maxUnnotifiedWait);
        this.renewals = new SlotRenewals(this.protocol, this.shareProtocol, clustered);
    }

    /**
     * A hand-off message for the key: both waiting components take it (a message does not say whether a write lock
     * or a share was handed on; a waiter it was not meant for finds the key as it is and waits on).
     */
    private void handedOver(String key) {
        this.waiting.handedOver(key);
        this.shares.handedOver(key);
    }

    /** The hand-off channel of these keys is listened to (again): their waiters look at Redis. */
    private void subscribed(Predicate<String> keys) {
        this.waiting.lookNow(keys);
        this.shares.lookNow(keys);
    }

    /** Deletes the registry entries and stops listening for hand-off messages. */
    void stop() {
        this.entries.stop();
        this.channel.close();
    }

    /** Ends the threads made here; a scheduler the store was given is its owner's to stop. */
    void shutdownThreads() {
        this.queueWork.shutdown();
        if (this.ownScheduler != null) {
            this.ownScheduler.shutdownNow();
        }
    }
}
