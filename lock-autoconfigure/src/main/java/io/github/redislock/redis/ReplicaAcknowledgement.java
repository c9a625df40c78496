package io.github.redislock.redis;

import java.time.Duration;
import java.util.function.Consumer;

import io.github.redislock.LockException;
import io.github.redislock.redis.support.KeySlots;

/**
 * Replica acknowledgement: a lock counts as acquired only once {@code WAIT} confirms that the given number of
 * replicas have received it, so that a replica Sentinel (or an operator) promotes after the master dies holds
 * the lock too, if it is one of those that acknowledged. Asked once per acquisition, after the attempt that
 * took the lock (free, or taken over from a hand-off); a lock that is not confirmed in time is released by the
 * caller, which fails closed.
 * <p>
 * What it does not buy: a replica that did not acknowledge can still be promoted (an operator's choice, or
 * Sentinel when the acknowledging ones are down), and {@code WAIT} is no durability promise: a replica that
 * acknowledged and restarts without persistence comes back empty. Renewals are not confirmed.
 */
final class ReplicaAcknowledgement {

    private final LockCommands redis;

    private final int replicas;

    private final long timeoutMillis;

    ReplicaAcknowledgement(LockCommands redis, int replicas, Duration timeout) {
        if (replicas < 1 || timeout.toMillis() < 1) {
            throw new IllegalArgumentException("Replica acknowledgement needs at least 1 replica and a timeout "
                    + "of at least 1 ms, not " + replicas + " and " + timeout);
        }
        this.redis = redis;
        this.replicas = replicas;
        this.timeoutMillis = timeout.toMillis();
    }

    /**
     * Confirms a lock just taken (a write lock or a share); not confirmed, it is released (handed on) at once and
     * the failure thrown.
     */
    void confirmOrRelease(HeldLock lock, Consumer<HeldLock> releaseInRedis) {
        try {
            confirm(lock.key, lock.value, lock.leaseMillis, lock.isShare());
        }
        catch (RuntimeException ex) {
            // Released in Redis, never passed on to a thread here: the lock did not count.
            lock.markReleased();
            try {
                releaseInRedis.accept(lock);
            }
            catch (RuntimeException suppressed) {
                ex.addSuppressed(suppressed);
            }
            throw ex;
        }
    }

    /**
     * Waits until enough replicas have the lock: extends its lease once more on the master and waits for that
     * write (which follows the acquisition) to reach them.
     * @throws LockException when fewer replicas confirmed within the timeout, the lock was already gone, or
     * Redis failed; the caller still holds whatever the master has and must release it
     */
    void confirm(LockKey key, String value, long leaseMillis, boolean share) {
        long acknowledged;
        try {
            acknowledged = this.redis.renewAndWait(share,
                    share ? new String[] { key.name, KeySlots.holdersKey(key.name) } : new String[] { key.name },
                    new String[] { Long.toString(leaseMillis), value }, this.replicas, this.timeoutMillis);
        }
        catch (RuntimeException ex) {
            throw new LockException("Redis failed while waiting for " + this.replicas + " replica(s) to acknowledge "
                    + "lock '" + key + "': " + ex.getMessage(), ex);
        }
        if (acknowledged < 0) {
            throw new LockException("Lock '" + key + "' was lost before its replicas acknowledged it");
        }
        if (acknowledged < this.replicas) {
            throw new LockException("Lock '" + key + "' was acknowledged by " + acknowledged + " of the "
                    + this.replicas + " replica(s) redis-lock.replicas-to-acknowledge asks for within "
                    + this.timeoutMillis + " ms (redis-lock.replication-timeout); not taken");
        }
    }

    int replicas() {
        return this.replicas;
    }
}
