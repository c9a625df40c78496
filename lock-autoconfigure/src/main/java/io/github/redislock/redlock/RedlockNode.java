package io.github.redislock.redlock;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.redis.support.LockKeys;
import io.github.redislock.redis.support.LockScripts;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * One independent Redis master of a Redlock: the scripts both Redis stores run ({@code acquire.lua} as a
 * single attempt that neither queues nor takes over, {@code renew.lua}, {@code unlock.lua}; see
 * {@link LockScripts}) and its own {@code fence.lua}, next to this class, on the node's own connection
 * factory. Errors surface as the client library's exceptions; {@link RedlockStore} counts them as a node
 * that did not answer.
 */
final class RedlockNode {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> ACQUIRE = LockScripts.load("acquire.lua", List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> RENEW = LockScripts.load("renew.lua", List.class);

    private static final RedisScript<Long> UNLOCK = LockScripts.load("unlock.lua", Long.class);

    private static final RedisScript<Long> FENCE = LockScripts.load(RedlockNode.class, "fence.lua", Long.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SHARE = LockScripts.load("share.lua", List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> RENEW_SHARES = LockScripts.load("share-renew.lua", List.class);

    /**
     * Most calls to one node on their way at once. A stalled node holds a thread per call until the command
     * timeout; past this many, further calls to it fail at once (the node counts as not answering) instead of
     * taking more threads.
     */
    static final int MAX_CALLS_IN_FLIGHT = 32;

    /** How long a fencing counter lasts after its last raise. */
    static final long FENCE_TTL_MILLIS = TimeUnit.DAYS.toMillis(1);

    private final String name;

    private final StringRedisTemplate redis;

    private final Semaphore inFlight = new Semaphore(MAX_CALLS_IN_FLIGHT);

    RedlockNode(String name, RedisConnectionFactory connectionFactory) {
        this.name = name;
        this.redis = new StringRedisTemplate(connectionFactory);
    }

    /**
     * One attempt on the key, and the lock's fencing counter on this node, read after the attempt.
     * @return the stored value when acquired, else {@code null}; and the counter (0 when none)
     */
    Taken acquire(String key, String token, long leaseMillis) {
        return taken(key, token, this.redis.execute(ACQUIRE, scriptKeys(key), token, Long.toString(leaseMillis)));
    }

    /**
     * One attempt of a writer that waits: taken, it queues {@code waiter} on this node (readers that come later
     * wait behind it, see {@code share.lua}), and a key a release handed to {@code waiter} is taken over.
     * @param address the queue entry's {@code <PUBLISH>:<channel>}: nobody listens (Redlock waits by retries), but a
     * release checks it as every entry
     */
    Taken acquire(String key, String token, long leaseMillis, String waiter, long entryMillis, String address) {
        return taken(key, token, this.redis.execute(ACQUIRE, scriptKeys(key), token, Long.toString(leaseMillis),
                waiter, Long.toString(entryMillis), address));
    }

    /**
     * acquire.lua's reply: 1 free, 2 taken over (the value holds the token with that fence), 3 a semaphore's, 0 taken
     * (with a third element: by readers).
     */
    private Taken taken(String key, String token, @Nullable List<?> reply) {
        long status = (reply != null) ? ((Number) reply.get(0)).longValue() : 0;
        if (status == 3) {
            return Taken.mismatch(((Number) reply.get(1)).longValue());
        }
        if (status != 1L && status != 2L) {
            return (reply != null && reply.size() > 2) ? Taken.READERS : Taken.NONE;
        }
        long clock = ((Number) reply.get(1)).longValue();
        return new Taken(token + ':' + clock, counter(this.redis.opsForValue().get(fenceKey(key))), clock, -1);
    }

    /**
     * One attempt at a share (share.lua, never queued): a read lock, or a semaphore's permit in the lowest slot free
     * here ({@code <slot>/<token>:<fence>}).
     * @return the entry stored when taken, else {@code null} or the permit count the key is in use with; and the
     * counter
     */
    Taken share(String key, String token, long leaseMillis, String kind) {
        List<?> reply = this.redis.execute(SHARE, shareKeys(key), "take", token, Long.toString(leaseMillis), kind, "",
                "", "", "slots");
        long status = (reply != null) ? ((Number) reply.get(0)).longValue() : 0;
        if (status == 3) {
            return Taken.mismatch(((Number) reply.get(1)).longValue());
        }
        if (status == 4) {
            throw new IllegalStateException("'" + key + "' is a Redis key of another type on " + this.name);
        }
        if (status != 1L && status != 2L) {
            return Taken.NONE;
        }
        long clock = ((Number) reply.get(1)).longValue();
        String entry = ((reply.size() > 2) ? ((Number) reply.get(2)).longValue() + "/" : "") + token + ':' + clock;
        return new Taken(entry, counter(this.redis.opsForValue().get(fenceKey(key))), clock,
                (reply.size() > 2) ? ((Number) reply.get(2)).intValue() : -1);
    }

    /** Compare-and-extend of a share's entry (lease 0: only checks); whether it was still held. */
    boolean renewShare(String key, String entry, long leaseMillis) {
        List<?> reply = this.redis.execute(RENEW_SHARES, List.of(key, KeySlots.holdersKey(key)),
                Long.toString(leaseMillis), entry);
        return reply != null && ((Number) reply.get(0)).longValue() == 1L;
    }

    /**
     * Releases a share's entry ({@code <token>:} any of the token's), or keeps it {@code keepMillis} more; whether
     * it was held.
     */
    boolean releaseShare(String key, String entry, long keepMillis) {
        List<?> reply = this.redis.execute(SHARE, shareKeys(key), "release", entry, "", Long.toString(keepMillis));
        return reply != null && ((Number) reply.get(0)).longValue() == 1L;
    }

    /** A waiting writer gives up its place on this node, passing on a key a release handed to it. */
    void leave(String key, String waiter) {
        this.redis.execute(UNLOCK, scriptKeys(key), waiter + ':', waiter);
    }

    /** A counter as read back: anything but a non-negative number (another client wrote it) counts as none. */
    private static long counter(@Nullable String stored) {
        if (stored == null) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(stored));
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    /**
     * Raises the key's fencing counter to at least the token, valid for {@link #FENCE_TTL_MILLIS}; returns the
     * counter afterwards. With {@code above} (a share's token, which must be its own) only a larger token raises
     * it, and a counter not raised comes back negated.
     */
    long raiseFence(String key, long token, boolean above) {
        Long stored = above
                ? this.redis.execute(FENCE, List.of(fenceKey(key)), Long.toString(token),
                        Long.toString(FENCE_TTL_MILLIS), "above")
                : this.redis.execute(FENCE, List.of(fenceKey(key)), Long.toString(token),
                        Long.toString(FENCE_TTL_MILLIS));
        return (stored != null) ? stored : 0;
    }

    /** Compare-and-extend: whether the key still held the value and was extended. */
    boolean renew(String key, String value, long leaseMillis) {
        List<?> reply = this.redis.execute(RENEW, List.of(key), Long.toString(leaseMillis), value);
        return reply != null && ((Number) reply.get(0)).longValue() == 1L;
    }

    /** Compare-and-release of whatever the token holds here; whether it held it. */
    boolean release(String key, String token) {
        return release(key, token, 0);
    }

    /**
     * Compare-and-release, or with {@code keepMillis > 0} (holdAtLeast) compare-and-keep: the key stays here,
     * owned by nobody, that many more milliseconds and then expires (unlock.lua's keep branch); whether it held it.
     */
    boolean release(String key, String token, long keepMillis) {
        Long released = (keepMillis > 0)
                ? this.redis.execute(UNLOCK, scriptKeys(key), token + ':', "", "", Long.toString(keepMillis))
                : this.redis.execute(UNLOCK, scriptKeys(key), token + ':');
        return released != null && released != 0L;
    }

    /** Takes one of the node's call slots; false when all are taken. */
    boolean startCall() {
        return this.inFlight.tryAcquire();
    }

    /** Gives back the slot of a call that ended. */
    void callEnded() {
        this.inFlight.release();
    }

    /** The key's value on this node. */
    @Nullable String read(String key) {
        return this.redis.opsForValue().get(key);
    }

    /**
     * The fencing counter of a lock key, in the library's namespace next to it (no lock name can be one); the one
     * definition of its name, which the holder view reads through {@code RedlockStore}. It expires a day after its
     * last raise: tokens count on from the nodes' clocks as well (see the package documentation), so a counter
     * only has to bridge clock differences between nodes.
     */
    static String fenceKey(String key) {
        return key + LockKeys.MARKER + "fence";
    }

    /** The lock key and the queue keys the shared scripts expect (a writer that waits queues there). */
    private static List<String> scriptKeys(String key) {
        String[] queue = KeySlots.queueKeys(key);
        return Arrays.asList(key, queue[0], queue[1]);
    }

    /** share.lua's keys: the lock key, its queue, queue entries and holders. */
    private static List<String> shareKeys(String key) {
        String[] companions = KeySlots.shareKeys(key);
        return Arrays.asList(key, companions[0], companions[1], companions[2]);
    }

    @Override
    public String toString() {
        return this.name;
    }

    /**
     * What one attempt found on this node: the value stored when acquired (a share's entry), the fencing counter,
     * the node's clock in microseconds when it took the key, and a permit's slot (-1 for none; -2 not taken because
     * readers hold the key); or, the key in use
     * with another permit count, that count (0 a read lock, 1 a write lock, N a semaphore of N; -1 for none).
     */
    record Taken(@Nullable String value, long counter, long clock, int slot, long mismatch) {

        static final Taken NONE = new Taken(null, 0, 0, -1, -1);

        /** Not taken: readers hold the key on this node. */
        static final Taken READERS = new Taken(null, 0, 0, -2, -1);

        Taken(@Nullable String value, long counter, long clock, int slot) {
            this(value, counter, clock, slot, -1);
        }

        static Taken mismatch(long permits) {
            return new Taken(null, 0, 0, -1, permits);
        }

        boolean acquired() {
            return this.value != null;
        }

        /** Not taken because readers hold the key here: a writer then waits with a place in the queue. */
        boolean readers() {
            return this == READERS;
        }
    }
}
