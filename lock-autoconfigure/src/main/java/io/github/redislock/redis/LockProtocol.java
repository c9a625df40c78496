package io.github.redislock.redis;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.redis.support.LockValue;

/**
 * The lock protocol as the engine sees it: what one attempt, release, renewal or check does to the store,
 * with typed answers. {@link RedisLockProtocol} runs it on one Redis (the Lua scripts next to it); other
 * stores or modes (several masters, replica acknowledgement) are other implementations of this seam.
 * <p>
 * Every method either completes or throws {@link LockException} naming the key. A failed
 * {@link #acquire} has already been undone as far as the store allows (see {@link #abandon}).
 */
interface LockProtocol {

    /** {@link #release}: no fencing token was used past the one the key holds. */
    long NO_FENCE = 0;

    /**
     * One attempt.
     * @param token the acquisition's fresh random token, stored as the owner
     * @param clientId this application's id when the caller may wait: a taken key then queues the
     * application, and a lock handed to it is taken over; {@code null} for a single attempt
     * @param queueEntryMillis how long the queue entry stays valid unless refreshed by the next attempt
     */
    Attempt acquire(LockKey key, String token, long leaseMillis, @Nullable String clientId, long queueEntryMillis);

    /**
     * Compare-and-release: hands the lock to the next queued application, or deletes the key.
     * @param value the stored value, or {@link LockValue#anyFenceOf} an owner
     * @param leavingClientId this application's id when it no longer waits for the key: its queue entry goes
     * @param lastFence the last fencing token this application used under the value (local hand-overs count
     * on past the one the key holds), or {@link #NO_FENCE}: the next holder's token will be larger
     * @return true when the key held the value, false when it was gone or someone else's (left untouched)
     */
    default boolean release(LockKey key, String value, @Nullable String leavingClientId, long lastFence) {
        return release(key, value, leavingClientId, lastFence, 0);
    }

    /**
     * {@link #release(LockKey, String, String, long)}, or, with {@code keepMillis > 0} (holdAtLeast), compare-and-keep
     * in the same one round trip: the key is not deleted nor handed on but stays, owned by nobody, for that many
     * more milliseconds (longer if needed for the next fencing token to be larger), and then expires.
     * @return true when the key held the value (released, handed on or kept), false when it was gone or someone
     * else's (left untouched)
     */
    boolean release(LockKey key, String value, @Nullable String leavingClientId, long lastFence, long keepMillis);

    /**
     * Compare-and-extend for locks of one cluster slot, in one round trip.
     * @return per key, whether it still held its value and was extended
     */
    boolean[] renew(List<HeldLock> locks, long leaseMillis);

    /**
     * Compare-and-extend of one lock, sent without waiting for the reply where the transport allows.
     * @return a stage completing with whether the key still held the value and was extended (or failing with
     * a {@link io.github.redislock.LockException}), or {@code null} when the transport cannot send without
     * waiting (use {@link #renew} then)
     */
    @Nullable CompletionStage<Boolean> extendWithoutWaiting(HeldLock lock, long leaseMillis);

    /** The key's current value, or {@code null} when free. */
    @Nullable String read(String key);

    /**
     * Undoes an attempt whose answer never arrived (timed out, interrupted, connection lost) but which may
     * still run: releases whatever the token took, behind the attempt where the transport keeps order. Best
     * effort, never throws.
     */
    void abandon(LockKey key, String token);
}
