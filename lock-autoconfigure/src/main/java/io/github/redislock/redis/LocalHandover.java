package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Cohort hand-over (after "lock cohorting", Dice, Marathe and Shavit): the "passed to U" states of
 * {@link Waiting}. A thread taking the key in Redis begins the application's turn. A release by a thread here
 * passes the lock directly to the first thread waiting here if that one was already waiting when the turn
 * began, at most {@link #handoverLimit} times in a row and while the turn is younger than
 * {@link #handoverTimeNanos}; otherwise the release goes to Redis and the next queued application gets its
 * turn. So each thread waiting gets the lock once per turn, and a thread that comes back for it waits for the
 * application's next turn like everyone else: waits stay even. With {@link #rejoin} (off by default) that thread
 * may be passed the lock again in the same turn, so turns run up to the two bounds. Every holder gets its own fencing token, one
 * above the previous holder's, and a release that ends such a run passes the last token used to Redis, where
 * the next token is counted on from it.
 * <p>
 * This class decides whether a release may pass the lock on, and makes a passed lock its claimer's (the
 * {@link Line} keeps the lock passed to it until then, and who may be passed it).
 */
final class LocalHandover {

    private static final Log logger = LogFactory.getLog(LocalHandover.class);

    private final LockProtocol protocol;

    private final QueueExit exit;

    /** Told of a held lock found no longer ours (marks and signals it). */
    private final Consumer<HeldLock> lost;

    /** Most local hand-overs in a row before a release goes to Redis (0: never pass a lock on locally). */
    private volatile int handoverLimit = RedisLockStore.DEFAULT_LOCAL_HANDOVER_LIMIT;

    /** No local hand-over once the application has held the key in Redis this long. */
    private volatile long handoverTimeNanos = RedisLockStore.DEFAULT_LOCAL_HANDOVER_TIME_LIMIT.toNanos();

    /** Whether a thread that joined the line during the turn may be passed the lock in it. */
    private volatile boolean rejoin;

    LocalHandover(LockProtocol protocol, QueueExit exit, Consumer<HeldLock> lost) {
        this.protocol = protocol;
        this.exit = exit;
        this.lost = lost;
    }

    /**
     * A release by a thread here: passes the lock to the line's first waiter, if the cohort is within its
     * bounds, the lease surely not run out, and that waiter was already waiting when the turn began (or, with
     * {@link #rejoin}, whenever it joined).
     * @return whether it was passed on (otherwise the release goes to Redis)
     */
    boolean passOn(Line line, HeldLock lock) {
        if (!mayPassOn(lock) || !line.offer(lock.passOn(), this.rejoin)) {
            return false;
        }
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + lock.key + "': passed to the next thread of this application (hand-over "
                    + (lock.handovers + 1) + " since taken in Redis)");
        }
        return true;
    }

    /** Within the cohort's bounds, and the lease surely not run out (or the release must check in Redis). */
    private boolean mayPassOn(HeldLock lock) {
        long now = System.nanoTime();
        return lock.handovers < this.handoverLimit && now - lock.tenureStartNanos < this.handoverTimeNanos
                && lock.leaseLeftNanos(now) > 0;
    }

    /** The token a release must count on from: the last one used here, if local hand-overs went past Redis's. */
    static long lastLocalFence(HeldLock lock) {
        return (lock.handovers > 0) ? lock.fence : LockProtocol.NO_FENCE;
    }

    /**
     * Takes a lock passed on by a holder here. With at least half of the claimer's lease left on the key, a
     * renewed lock with the same lease is used as it is (the renewer keeps it alive from here), and any other is
     * used at once while a compare-and-extend to the claimer's own lease goes out without waiting (where the
     * transport allows); the lock counts as held until the key's current lease ends until that extension is
     * confirmed, and is signalled lost should it find the key no longer ours. Otherwise the extension comes
     * first, one round trip, which also confirms the key is still ours.
     * @return the lock, or {@code null} when the key turned out no longer ours (its lease ran out meanwhile)
     */
    @Nullable HeldLock claim(LockKey key, LocalGrant grant, long leaseMillis, boolean renewed) {
        long now = System.nanoTime();
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (grant.expiresAtNanos() - now > leaseNanos / 2) {
            // Held until the key's current lease ends, or until this holder's own lease would end if that is
            // sooner: an extension to a shorter lease may already have shortened the key when its reply comes.
            long leaseFrom = Math.min(grant.expiresAtNanos() - leaseNanos, now);
            HeldLock lock = HeldLock.claimed(key, grant, leaseMillis, renewed, leaseFrom);
            if (renewed && grant.renewed() && grant.leaseMillis() == leaseMillis) {
                return lock;
            }
            CompletionStage<Boolean> extension = this.protocol.extendWithoutWaiting(lock, leaseMillis);
            if (extension != null) {
                extension.whenComplete((extended, ex) -> extendedWithoutWaiting(lock, now, extended, ex));
                return lock;
            }
        }
        HeldLock lock = HeldLock.claimed(key, grant, leaseMillis, renewed, now);
        boolean extended;
        try {
            extended = this.protocol.renew(List.of(lock), leaseMillis)[0];
        }
        catch (RuntimeException ex) {
            // Unknown whether the key is still ours: release it (compare-and-release), or it expires.
            this.exit.leaveLater(key, grant);
            throw ex;
        }
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + key + "': passed on by a thread of this application, "
                    + (extended ? "extended to " + leaseMillis + " ms" : "but its lease had run out"));
        }
        return extended ? lock : null;
    }

    /** The reply to an extension sent without waiting for it (on the I/O thread). */
    private void extendedWithoutWaiting(HeldLock lock, long sentAt, @Nullable Boolean extended,
            @Nullable Throwable failure) {
        if (failure != null) {
            // Still held until the key's lease ends, as far as anyone knows: the release checks in Redis.
            logger.warn("Could not extend lock '" + lock.key + "' passed on within this application to its new "
                    + "holder's lease; it keeps the lease it had", failure);
        }
        else if (Boolean.TRUE.equals(extended)) {
            lock.extended(sentAt);
        }
        else {
            this.lost.accept(lock);
        }
    }

    /** See {@link RedisLockStore#setLocalHandoverLimit}. */
    void handoverLimit(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("The local hand-over limit must not be negative, was " + limit);
        }
        this.handoverLimit = limit;
    }

    /** See {@link RedisLockStore#setLocalHandoverRejoin}. */
    void rejoin(boolean rejoin) {
        this.rejoin = rejoin;
    }

    /** See {@link RedisLockStore#setLocalHandoverTimeLimit}. */
    void handoverTimeLimit(Duration limit) {
        if (limit.isNegative()) {
            throw new IllegalArgumentException("The local hand-over time limit must not be negative, was " + limit);
        }
        this.handoverTimeNanos = limit.toNanos();
    }
}
