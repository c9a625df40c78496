package io.github.redislock.test;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockTokens;

/**
 * The in-memory store's instance registry: the instances whose tokens it holds, by the id that begins their tokens,
 * so that its holder view names a holder as the Redis and ZooKeeper registries do. Entries last as long as the
 * store (one JVM: nothing to expire).
 */
final class InstanceNames {

    private final Map<String, InstanceInfo> byId = new ConcurrentHashMap<>();

    /** Names the instance whose tokens begin with {@code ownerId}. */
    void publish(InstanceInfo self, String ownerId) {
        this.byId.put(ownerId, self);
    }

    /** The holder of a token: its instance, or {@code UNKNOWN} for an id nobody published (or no token at all). */
    LockInspection.Holder holderOf(@Nullable String token) {
        String id = LockTokens.idOf(token);
        InstanceInfo instance = (id != null) ? this.byId.get(id) : null;
        return (instance != null) ? LockInspection.Holder.of(instance) : LockInspection.Holder.UNKNOWN;
    }
}
