package io.github.redislock.redis;

import java.util.List;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * The transport under {@link RedisLockProtocol}: the Redis calls the engine makes, on Boot's connection.
 * Errors surface as runtime exceptions of the client library (translated to Spring's
 * {@code DataAccessException}s where possible); the protocol wraps them.
 */
interface LockCommands {

    /**
     * acquire.lua on the lock key, and on its queue and queue entries when the caller may queue (an attempt
     * that may not wait sends the lock key alone: the script touches nothing else then).
     */
    List<?> acquire(LockKey key, boolean mayQueue, String[] args);

    /** unlock.lua on the lock key, its queue and its queue entries. */
    @Nullable Long release(LockKey key, String[] args);

    /** renew.lua: {@code args} = lease, then one value per key. */
    List<?> renew(String[] keys, String[] args);

    /** share.lua on the lock key, its queue, queue entries and holders: a share taken or released. */
    List<?> share(String[] keys, String[] args);

    /**
     * share-renew.lua: {@code keys} = per share its lock key and holders; {@code args} = lease, then one holder
     * each.
     */
    List<?> renewShares(String[] keys, String[] args);

    /**
     * renew.lua without waiting for the reply, where the transport can: the stage completes with the reply
     * (or the failure); {@code null} when the transport cannot send without waiting.
     */
    default @Nullable CompletionStage<List<?>> renewAsync(String[] keys, String[] args) {
        return null;
    }

    /**
     * Replica acknowledgement: renew.lua ({@code keys} = the key; {@code args} = lease, value), or share-renew.lua
     * for a share ({@code keys} = the key and its holders; {@code args} = lease, holder), then
     * {@code WAIT replicas timeout} on the same connection, so that the write WAIT counts is one made after the
     * caller's last write.
     * @return how many replicas acknowledged, or -1 when the key no longer held the value (nothing waited for)
     */
    long renewAndWait(boolean share, String[] keys, String[] args, int replicas, long timeoutMillis);

    /** Plain GET. */
    @Nullable String get(String key);

    /** The server's version, from {@code INFO server}, e.g. "7.0.15" (the lowest one in a cluster). */
    String serverVersion();

    /**
     * Whether every command goes over one connection, which Redis executes in order, so that
     * {@link #releaseBehind} runs after an earlier attempt that is still on its way.
     */
    boolean keepsOrder();

    /** Sends unlock.lua without waiting for its reply; failures are only logged. */
    void releaseBehind(LockKey key, String[] args);
}
