package io.github.redislock.modelcheck;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.RedisLockStore;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TestConnections;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The single-Redis store on a real Redis: each application with a Lettuce connection factory and a store of its
 * own. What the backend keeps is every key under the prefix (the lock key, a shared key's holders, its queue and
 * entries), but the instance registry; it forgets them all at once, as a restart without persistence would.
 */
public final class RedisBackend implements Backend {

    private static final String PREFIX = "model:";

    private final RedisServer redis;

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    /** @param redis a server the properties share; emptied here */
    public RedisBackend(RedisServer redis) {
        this.redis = redis;
        redis.flushAll();
    }

    @Override
    public LockStore newStore() {
        RedisConnectionFactory factory = TestConnections.lettuce(this.redis, Duration.ofSeconds(2));
        this.factories.add(factory);
        return new RedisLockStore(factory, PREFIX, null, 0, Duration.ZERO);
    }

    /** Every key the store keeps for the lock goes: the key, its holders and its queue. */
    @Override
    public void forget(String key) {
        for (String name : residue(key)) {
            this.redis.command("DEL", name);
        }
    }

    @Override
    public List<String> residue(String key) {
        List<String> residue = new ArrayList<>();
        for (Object name : (List<?>) this.redis.command("KEYS", PREFIX + "*")) {
            if (!((String) name).contains("~lock~instance:")) {
                residue.add((String) name);
            }
        }
        return residue;
    }

    @Override
    public void close() {
        this.factories.forEach(TestConnections::destroy);
    }
}
