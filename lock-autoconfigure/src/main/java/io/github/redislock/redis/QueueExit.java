package io.github.redislock.redis;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.redis.support.LockValue;

/**
 * Leaving a key's Redis queue, and the hand-off messages that reach this application (the "leaving" and
 * "handed over" states of {@link Waiting}). "Leaving" runs {@code unlock.lua} with this application's id: it
 * takes the queue entry out and passes a hand-off that reached the application on to the next one, so a key is
 * never left handed to nobody; a lock passed to the line that nobody claimed is released with it. A hand-off
 * message with a waiter here wakes that waiter, which takes it over with its next attempt; with nobody waiting
 * here it is passed on by leaving. This class alone remembers which queues the application left lately, and
 * which pass-ons are queued.
 * <p>
 * Leaving runs on the executor given, never on the thread that delivered a message, nor on the thread that
 * renews leases: what messages cause must never delay a renewal.
 */
final class QueueExit {

    private static final Log logger = LogFactory.getLog(QueueExit.class);

    /** How long after leaving a key's queue a hand-off message for it is still passed on. */
    private static final long LEFT_LATELY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Most keys remembered as left lately. */
    private static final int LEFT_LATELY_MAX_KEYS = 1024;

    private final LockProtocol protocol;

    private final String clientId;

    private final Executor executor;

    private final Lines lines;

    /** Keys whose queue this application left lately, with until when a hand-off message for it counts. */
    private final Map<String, Long> leftLately = new ConcurrentHashMap<>();

    /** Keys whose pass-on of a hand-off message is queued: one at a time per key, whatever a flood sends. */
    private final Set<String> passingOn = ConcurrentHashMap.newKeySet();

    QueueExit(LockProtocol protocol, String clientId, Executor executor, Lines lines) {
        this.protocol = protocol;
        this.clientId = clientId;
        this.executor = executor;
        this.lines = lines;
    }

    /**
     * On the executor: takes this application out of the key's queue, passing on any hand-off to it, and
     * releases {@code orphan}, a lock passed to its line that nobody claimed; unless a thread waits here: that
     * one takes over instead.
     */
    void leaveLater(LockKey key, @Nullable LocalGrant orphan) {
        this.executor.execute(() -> leaveQueueOrRelease(key, orphan));
    }

    /**
     * A hand-off message (on the I/O thread): the first waiter takes it over. With nobody waiting here (the
     * last waiter is leaving, or left the key's queue lately) it is passed on to the next application, once per
     * key however many messages come. A message is not trusted (any client allowed to publish on the channel
     * can send one): for a key this application neither waits for nor left within {@link #LEFT_LATELY_NANOS}
     * it is dropped without a Redis call. Leaving passed on any hand-off that had reached the application; one
     * can come later only when an attempt whose answer was lost queued the application again after it left.
     */
    void handedOver(String keyName) {
        Line line = this.lines.get(keyName);
        if (line == null && !leftLately(keyName)) {
            logger.debug("Hand-off message for a lock this application neither waits for nor left lately; dropped");
            return;
        }
        boolean taken = line != null && line.handedOver();
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + keyName + "' handed to this application; "
                    + (taken ? "its first waiter takes it over" : "nobody waits here, passing it on"));
        }
        if (!taken && this.passingOn.add(keyName)) {
            LockKey key = new LockKey(keyName);
            try {
                this.executor.execute(() -> {
                    this.passingOn.remove(keyName);
                    leaveQueueOrRelease(key, null);
                });
            }
            catch (RejectedExecutionException ex) {
                // Closed: the key expires with its lease.
                this.passingOn.remove(keyName);
            }
        }
    }

    /**
     * See {@link #leaveLater}. A thread that joins while this is on its way looks at Redis again afterwards, as
     * its queue entry may have gone with ours.
     */
    private void leaveQueueOrRelease(LockKey key, @Nullable LocalGrant orphan) {
        Line line = this.lines.get(key.name);
        if (line != null && ((orphan != null) ? line.offer(orphan) : line.tryNow())) {
            return;
        }
        try {
            if (orphan != null) {
                this.protocol.release(key, orphan.value(), this.clientId, orphan.fence());
            }
            else {
                this.protocol.release(key, LockValue.anyFenceOf(this.clientId), this.clientId, LockProtocol.NO_FENCE);
            }
        }
        catch (LockException ex) {
            logger.warn("Could not leave the queue of lock '" + key + "'; the entry expires by itself and a lock "
                    + "held by or handed to this application meanwhile expires with its lease", ex);
        }
        left(key.name);
        Line now = this.lines.get(key.name);
        if (now != null) {
            this.lines.leftQueue(key.name, now);
        }
    }

    /** Remembers, for a while, that this application left the key's queue (see {@link #handedOver}). */
    private void left(String keyName) {
        long now = System.nanoTime();
        if (this.leftLately.size() >= LEFT_LATELY_MAX_KEYS) {
            this.leftLately.values().removeIf((until) -> until - now <= 0);
            if (this.leftLately.size() >= LEFT_LATELY_MAX_KEYS) {
                // Bounded: a key not remembered only loses the pass-on of a late hand-off (it expires instead).
                return;
            }
        }
        this.leftLately.put(keyName, now + LEFT_LATELY_NANOS);
    }

    /** Whether this application left the key's queue lately; forgets it, so one leave allows one pass-on. */
    private boolean leftLately(String keyName) {
        Long until = this.leftLately.remove(keyName);
        return until != null && until - System.nanoTime() > 0;
    }
}
