package io.github.redislock.core;

import java.util.List;

/**
 * The Redis calls the engine makes. Errors surface as runtime exceptions of the client library; the engine
 * wraps them into {@code LockException}s naming the key.
 */
interface LockCommands {

    /**
     * acquire.lua: {1, fence} (ours), {2, fence} (handed to this client) or {0, pttl} (taken).
     * @param keys the lock key, its queue and its queue entries
     * @param args token, lease ms, and when the caller waits: client id, queue entry lifetime ms
     */
    List<?> acquire(String[] keys, String[] args);

    /**
     * unlock.lua: 1 when released or handed on, 0 when not ours.
     * @param keys the lock key, its queue and its queue entries
     * @param args value, then optionally channel prefix, publish command, leaving client id
     */
    Long release(String[] keys, String[] args);

    /** renew.lua: per key 1 (extended) or 0 (not ours); {@code args} = lease, then one token per key. */
    List<?> renew(List<String> keys, Object[] args);

    /** Plain GET. */
    String get(String key);

    /** The server's version, from {@code INFO server}, e.g. "7.0.15". */
    String serverVersion();
}
