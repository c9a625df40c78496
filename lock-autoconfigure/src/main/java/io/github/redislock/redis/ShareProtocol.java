package io.github.redislock.redis;

import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockMode;
import io.github.redislock.engine.Sharing;
import io.github.redislock.redis.support.LockValue;

/**
 * The Java side of {@code share.lua} and {@code share-renew.lua} (read locks and a semaphore's permits on one Redis):
 * their arguments and typed replies, and the one place where their Redis failures become a {@link LockException}.
 * Write locks are {@link RedisLockProtocol}'s; the two meet only in Redis, where a shared key's marker keeps
 * {@code acquire.lua}'s {@code SET NX} out and a writer waits in the same queue, so a write lock's path costs what
 * it always did.
 * <p>
 * A key in Redis, as the scripts move it (W: a write lock's value; a share: a read lock or a permit; the queue holds
 * writer applications and waiting shares in arrival order):
 * <pre>
 * state               event                                                 next state
 * FREE                write lock (acquire.lua SET NX)                       W
 * FREE                share, nobody queued ahead                            SHARED(kind, 1): marker '~r:' or
 *                                                                           '~s&lt;N&gt;:' + holders set
 * FREE                share, a writer application first in the queue        HANDED(that writer); the share queues
 * W, HANDED, KEPT     read lock asked                                       same; the reader queues
 * W, HANDED(writer),  permit asked                                          same; mismatch (a write lock's key)
 *   KEPT
 * W                   writer releases, a waiting share first in the queue   HANDED(that share's waiter id)
 * HANDED(share)       that waiter's attempt                                 SHARED(kind, 1 + the shares of its
 *                                                                           kind behind it, let in, up to N)
 * SHARED(k, n)        share of k, nobody queued ahead, room (readers:       SHARED(k, n + 1)
 *                     always)
 * SHARED(k, n)        share of k, someone queued ahead or no room           SHARED(k, n); the share queues
 * SHARED(k, n)        share of another count; write lock on a semaphore     SHARED(k, n); mismatch, nothing queued
 * SHARED(r, n)        write lock (acquire.lua)                              SHARED(r, n); the writer queues, and
 *                                                                           readers arriving later queue behind it
 * SHARED(k, n)        a holder released, or found with its lease run out    SHARED(k, n - 1), then the queue served:
 *                     by any script that admits                             shares of k let in while they fit (as
 *                                                                           waiter ids with their own lease, told
 *                                                                           by message); at n - 1 = 0 a writer
 *                                                                           application first gets HANDED
 * SHARED(k, 0)        nobody let in, nobody queued                          FREE (a fence floor '~:&lt;fence&gt;'
 *                                                                           while the clock has not passed it)
 * SHARED(k, n)        a holder released before its holdAtLeast              SHARED(k, n): its entry becomes
 *                                                                           '~kept:&lt;fence&gt;'
 *                                                                           for the rest of the minimum
 * SHARED(k, n)        every lease runs out, no script runs                  FREE (the marker's TTL is its
 *                                                                           longest-lived holder's)
 * </pre>
 * Fencing tokens are Redis time in microseconds, or one more than the key's last when that is larger, drawn when
 * a holder is made (a waiter let in gets its own when it takes its place over), so they grow across write locks,
 * read locks and permits. Nothing read back is trusted: queue entries are checked as {@code unlock.lua} checks
 * them, holders scored past any lease this library gives are dropped, a key of another Redis type is refused.
 */
final class ShareProtocol {

    private static final Log logger = LogFactory.getLog(ShareProtocol.class);

    private static final long WAIT = 0;

    private static final long ADMITTED = 2;

    private static final long MISMATCH = 3;

    private static final long OTHER_TYPE = 4;

    /** When an abandoned attempt is undone once more: the attempt may still be on its way over another connection. */
    private static final long ABANDON_AGAIN_MILLIS = 1000;

    private final LockCommands redis;

    private final ScheduledExecutorService scheduler;

    ShareProtocol(LockCommands redis, ScheduledExecutorService scheduler) {
        this.redis = redis;
        this.scheduler = scheduler;
    }

    /** How share.lua names a sharing: {@code r} for a read lock, {@code s<N>} for a semaphore of N. */
    static String kind(Sharing sharing) {
        return sharing.isRead() ? "r" : "s" + sharing.permits();
    }

    /**
     * One attempt at a share.
     * @param waiter the caller's waiter id when it may wait: a full key (or one with waiters ahead) then queues it,
     * and a share it was let in to is taken over; {@code null} for a single attempt that never queues
     * @param address how the caller hears that it was let in ({@link HandoffChannel#address}); with a waiter only
     * @return acquired (a holder now) or taken (with how long until the key's or the first share's lease ends)
     * @throws LockException if the key is in use with another permit count ({@link Sharing#mismatch}: the caller's
     * queue entry is gone), holds another Redis type, or Redis fails (the attempt is undone)
     */
    Attempt take(LockKey key, String token, long leaseMillis, Sharing sharing, @Nullable String waiter,
            long queueEntryMillis, @Nullable String address) {
        long sentAt = System.nanoTime();
        String[] args = (waiter != null)
                ? new String[] { "take", token, Long.toString(leaseMillis), kind(sharing), waiter,
                        Long.toString(queueEntryMillis), address }
                : new String[] { "take", token, Long.toString(leaseMillis), kind(sharing) };
        List<?> reply;
        try {
            reply = this.redis.share(key.shareKeys(), args);
        }
        catch (RuntimeException ex) {
            abandon(key, token, waiter);
            throw failure("acquiring", key, ex);
        }
        long status = number(reply, 0, key);
        long value = number(reply, 1, key);
        if (status == MISMATCH) {
            throw sharing.mismatch(key.name, held(value));
        }
        if (status == OTHER_TYPE) {
            throw new LockException("Lock '" + key + "' is a Redis key of another type, not a lock of this library: "
                    + "another client uses the name; not taken");
        }
        return (status == WAIT) ? Attempt.taken(value, sentAt) : Attempt.acquired(value, status == ADMITTED, sentAt);
    }

    /** What a mismatch reply names: 0 a read lock, 1 a write lock, N a semaphore of N. */
    private static Sharing held(long permits) {
        return (permits == 0) ? Sharing.READ : (permits == 1) ? Sharing.EXCLUSIVE
                : new Sharing(LockMode.WRITE, (int) Math.min(permits, Integer.MAX_VALUE));
    }

    /**
     * Releases a holder (compare-and-release of its entry), or keeps it {@code keepMillis} more (holdAtLeast), and
     * takes a waiter of this application out of the queue and the holders; lets in whoever then fits.
     * @param holder the holder's entry, {@link LockValue#anyFenceOf} a token, or {@code null} for none
     * @param leavingWaiter a waiter id that gives up, or {@code null}
     * @return whether the holder was there (its lease not run out)
     */
    boolean release(LockKey key, @Nullable String holder, @Nullable String leavingWaiter, long keepMillis) {
        List<?> reply;
        try {
            reply = this.redis.share(key.shareKeys(), new String[] { "release", (holder != null) ? holder : "",
                    (leavingWaiter != null) ? leavingWaiter : "", Long.toString(keepMillis) });
        }
        catch (RuntimeException ex) {
            throw failure("releasing", key, ex);
        }
        return number(reply, 0, key) == 1L;
    }

    /**
     * Compare-and-extend of shares of one cluster slot in one round trip; {@code leaseMillis} 0 only checks.
     * @return per share, whether it was still held (then extended)
     */
    boolean[] renew(List<HeldLock> shares, long leaseMillis) {
        String[] keys = new String[2 * shares.size()];
        String[] args = new String[shares.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < shares.size(); i++) {
            HeldLock share = shares.get(i);
            keys[2 * i] = share.key.name;
            keys[2 * i + 1] = share.key.holders();
            args[i + 1] = share.value;
        }
        List<?> reply;
        try {
            reply = this.redis.renewShares(keys, args);
        }
        catch (RuntimeException ex) {
            throw failure((leaseMillis > 0) ? "renewing" : "checking", shares.get(0).key, ex);
        }
        boolean[] held = new boolean[shares.size()];
        for (int i = 0; i < held.length; i++) {
            held[i] = number(reply, i, shares.get(i).key) == 1L;
        }
        return held;
    }

    /**
     * Undoes an attempt whose answer never arrived but which may still run: whatever the token took, and the waiter's
     * place in the queue, go; now and once more when the attempt has surely run. Best effort, never throws.
     */
    void abandon(LockKey key, String token, @Nullable String waiter) {
        Runnable undo = () -> {
            try {
                release(key, LockValue.anyFenceOf(token), waiter, 0);
            }
            catch (RuntimeException ex) {
                logger.debug("Could not undo an abandoned attempt on lock '" + key + "'", ex);
            }
        };
        try {
            this.scheduler.execute(undo);
            this.scheduler.schedule(undo, ABANDON_AGAIN_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not schedule the undo of an abandoned attempt on lock '" + key + "'", ex);
        }
    }

    private static long number(@Nullable List<?> reply, int index, LockKey key) {
        if (reply == null || reply.size() <= index || !(reply.get(index) instanceof Number number)) {
            throw new LockException("Unexpected reply from Redis for lock '" + key + "': " + reply);
        }
        return number.longValue();
    }

    private static LockException failure(String action, LockKey key, RuntimeException ex) {
        String consequence = action.equals("releasing") ? "; it expires when its lease ends" : "";
        return new LockException("Redis failed while " + action + " lock '" + key + "'" + consequence + ": "
                + ex.getMessage(), ex);
    }
}
