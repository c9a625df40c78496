package io.github.redislock.core;

import java.util.List;

/**
 * The four Redis calls the engine makes. Errors surface as runtime exceptions of the client library; the
 * engine wraps them into {@code LockException}s naming the key.
 */
interface LockCommands {

    /** acquire.lua: {1, fence} or {0, pttl}. */
    List<?> acquire(String key, String fenceKey, String token, String leaseMillis);

    /** unlock.lua: 1 when deleted, 0 when not ours. */
    Long release(String key, String token, String channel);

    /** renew.lua: per key 1 (extended) or 0 (not ours); {@code args} = lease, then one token per key. */
    List<?> renew(List<String> keys, Object[] args);

    /** Plain GET. */
    String get(String key);
}
