package io.github.redislock.redlock;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.redis.support.LockKeys;
import io.github.redislock.redis.support.LockScripts;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * One independent Redis master of a Redlock: the scripts both Redis stores run ({@code acquire.lua} as a
 * single attempt that neither queues nor takes over, {@code renew.lua}, {@code unlock.lua}; see
 * {@link LockScripts}) and its own {@code fence.lua}, next to this class, on the node's own connection
 * factory, through {@link NodeCalls}: every call returns at once and its answer comes later to a
 * {@link Round.Answer}. A command the same on every node of a round is built once ({@link #acquisition},
 * {@link #fence}, {@link #release}). Errors come as the client library's exceptions; {@link RedlockStore} counts
 * them as a node that did not answer.
 */
final class RedlockNode {

    private static final NodeScript ACQUIRE = NodeScript.of(LockScripts.load("acquire.lua", List.class));

    private static final NodeScript RENEW = NodeScript.of(LockScripts.load("renew.lua", List.class));

    private static final NodeScript UNLOCK = NodeScript.of(LockScripts.load("unlock.lua", Long.class));

    private static final NodeScript FENCE = NodeScript.of(LockScripts.load(RedlockNode.class, "fence.lua", Long.class));

    private static final NodeScript SHARE = NodeScript.of(LockScripts.load("share.lua", List.class));

    private static final NodeScript RENEW_SHARES = NodeScript.of(LockScripts.load("share-renew.lua", List.class));

    /** How long a fencing counter lasts after its last raise. */
    static final long FENCE_TTL_MILLIS = TimeUnit.DAYS.toMillis(1);

    private static final String FENCE_TTL = Long.toString(FENCE_TTL_MILLIS);

    /** For calls nobody waits for: their failure is the lease's to cover (the key expires). */
    private static final NodeCalls.Reply<Object> NOT_WAITED_FOR = (value, read, failure) -> {
    };

    private final String name;

    private final NodeCalls calls;

    private final CallSlots slots;

    /**
     * @param executor where calls that block run (Jedis; Lettuce until its shared connection is known): the store's
     * {@code redlock-call} threads
     * @param stallNanos how long a caller waits for a slot of this node while every one is taken ({@link CallSlots})
     */
    RedlockNode(String name, RedisConnectionFactory connectionFactory, Executor executor, long stallNanos) {
        this.name = name;
        this.slots = new CallSlots(name, stallNanos);
        this.calls = NodeCalls.of(name, connectionFactory, executor);
    }

    /**
     * One attempt at a write lock, the same on every node, which also raises the lock's fencing counter once the key
     * is taken (acquire.lua's optional fourth key, kept {@link #FENCE_TTL_MILLIS}): one command per node. With a
     * {@code waiter}, the attempt of a writer that waits: taken, it queues the waiter on the node (readers that come
     * later wait behind it, see {@code share.lua}), and a key a release handed to the waiter is taken over; its
     * address ({@code <PUBLISH>:<channel>}) has nobody listening (Redlock waits by retries), but a release checks it
     * as every entry. Without one, the queue keys are named but not touched.
     */
    static NodeCommand acquisition(String key, String token, long leaseMillis, RedlockAttempt.@Nullable Waiter waiter) {
        String[] queue = KeySlots.queueKeys(key);
        String[] keys = { key, queue[0], queue[1], fenceKey(key) };
        String[] args = (waiter != null)
                ? new String[] { token, Long.toString(leaseMillis), waiter.id(), Long.toString(waiter.entryMillis()),
                        waiter.address(), FENCE_TTL }
                : new String[] { token, Long.toString(leaseMillis), "", "", "", FENCE_TTL };
        return new NodeCommand(ACQUIRE, keys, args);
    }

    /**
     * Sends an {@link #acquisition}: the answer is the stored value when acquired, else none; and the counter as
     * raised.
     */
    void acquire(NodeCommand acquisition, String token, Round.Answer<Taken> answer) {
        this.calls.<List<?>>script(acquisition, (reply, read, failure) -> {
            if (failure != null) {
                answer.answered(null, failure);
            }
            else {
                answer.answered(Taken.ofAcquisition(token, reply), null);
            }
        });
    }

    /**
     * One attempt at a share (share.lua, never queued), the same on every node, with the fencing counter read after
     * it: a read lock ({@code kind} "r"), or a semaphore's permit ("s" and the permit count).
     */
    static NodeCommand shareAttempt(String key, String token, long leaseMillis, String kind) {
        return new NodeCommand(SHARE, shareKeys(key),
                new String[] { "take", token, Long.toString(leaseMillis), kind, "", "", "", "slots" }, fenceKey(key));
    }

    /**
     * Sends a {@link #shareAttempt}: the answer is the entry stored when taken (a permit's in the lowest slot free
     * here, {@code <slot>/<token>:<fence>}), else none or the permit count the key is in use with; and the counter.
     */
    void share(NodeCommand attempt, String key, String token, Round.Answer<Taken> answer) {
        this.calls.<List<?>>script(attempt, (reply, counter, failure) -> {
            if (failure != null) {
                answer.answered(null, failure);
                return;
            }
            long status = (reply != null) ? ((Number) reply.get(0)).longValue() : 0;
            if (status == 4) {
                answer.answered(null, new IllegalStateException("'" + key + "' is a Redis key of another type on "
                        + this.name));
            }
            else {
                answer.answered(Taken.ofShare(token, reply, counter), null);
            }
        });
    }

    /** Compare-and-extend of a share's entry (lease 0: only checks); the answer: whether it was still held. */
    void renewShare(String key, String entry, long leaseMillis, Round.Answer<Boolean> answer) {
        this.calls.<List<?>>script(new NodeCommand(RENEW_SHARES, new String[] { key, KeySlots.holdersKey(key) },
                Long.toString(leaseMillis), entry), (reply, read, failure) -> answer.answered(
                        (failure == null) ? firstIsOne(reply) : null, failure));
    }

    /**
     * Releases a share's entry ({@code <token>:} any of the token's), or keeps it {@code keepMillis} more; the answer:
     * whether it was held.
     */
    void releaseShare(String key, String entry, long keepMillis, Round.Answer<Boolean> answer) {
        this.calls.<List<?>>script(new NodeCommand(SHARE, shareKeys(key), "release", entry, "",
                Long.toString(keepMillis)), (reply, read, failure) -> answer.answered(
                        (failure == null) ? firstIsOne(reply) : null, failure));
    }

    /** A waiting writer gives up its place on this node, passing on a key a release handed to it; not waited for. */
    void leave(String key, String waiter) {
        this.calls.script(new NodeCommand(UNLOCK, scriptKeys(key), waiter + ':', waiter), NOT_WAITED_FOR);
    }

    private static boolean firstIsOne(@Nullable List<?> reply) {
        return reply != null && ((Number) reply.get(0)).longValue() == 1L;
    }

    /**
     * Raising the key's fencing counter to at least the token, valid for {@link #FENCE_TTL_MILLIS}, the same on every
     * node. With {@code above} (a share's token, which must be its own) only a larger token raises it.
     */
    static NodeCommand fence(String key, long token, boolean above) {
        String[] keys = { fenceKey(key) };
        return above ? new NodeCommand(FENCE, keys, Long.toString(token), FENCE_TTL, "above")
                : new NodeCommand(FENCE, keys, Long.toString(token), FENCE_TTL);
    }

    /**
     * Sends a {@link #fence} raise; the answer is the counter afterwards ({@code 0} for none), negated when a share's
     * token did not raise it.
     */
    void raiseFence(NodeCommand fence, Round.Answer<Long> answer) {
        this.calls.<Long>script(fence, (stored, read, failure) -> answer.answered(
                (failure == null) ? (Long) ((stored != null) ? stored : 0L) : null, failure));
    }

    /** Compare-and-extend; the answer: whether the key still held the value and was extended. */
    void renew(String key, String value, long leaseMillis, Round.Answer<Boolean> answer) {
        this.calls.<List<?>>script(new NodeCommand(RENEW, new String[] { key }, Long.toString(leaseMillis), value),
                (reply, read, failure) -> answer.answered((failure == null) ? firstIsOne(reply) : null, failure));
    }

    /**
     * Compare-and-release of whatever the token holds, the same on every node; or with {@code keepMillis > 0}
     * (holdAtLeast) compare-and-keep: the key stays, owned by nobody, that many more milliseconds and then expires
     * (unlock.lua's keep branch).
     */
    static NodeCommand release(String key, String token, long keepMillis) {
        return (keepMillis > 0)
                ? new NodeCommand(UNLOCK, scriptKeys(key), token + ':', "", "", Long.toString(keepMillis))
                : new NodeCommand(UNLOCK, scriptKeys(key), token + ':');
    }

    /** Sends a {@link #release}; the answer: whether the node held it. */
    void release(NodeCommand release, Round.Answer<Boolean> answer) {
        this.calls.<Long>script(release, (released, read, failure) -> answer.answered(
                (failure == null) ? (Boolean) (released != null && released != 0L) : null, failure));
    }

    /** The bound on this node's calls on their way (see {@link CallSlots}). */
    CallSlots slots() {
        return this.slots;
    }

    /**
     * Whether calls go out on Lettuce's shared connection (looked up), rather than through the template on the store's
     * threads, where a node's calls may be applied in another order than they were made.
     */
    boolean sendsInOrder() {
        return this.calls instanceof LettuceNodeCalls lettuce && lettuce.connected();
    }

    /** Reads the key's value on this node. */
    void read(String key, Round.Answer<String> answer) {
        this.calls.get(key, (value, read, failure) -> answer.answered(value, failure));
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
    private static String[] scriptKeys(String key) {
        String[] queue = KeySlots.queueKeys(key);
        return new String[] { key, queue[0], queue[1] };
    }

    /** share.lua's keys: the lock key, its queue, queue entries and holders. */
    private static String[] shareKeys(String key) {
        String[] companions = KeySlots.shareKeys(key);
        return new String[] { key, companions[0], companions[1], companions[2] };
    }

    @Override
    public String toString() {
        return this.name;
    }
}
