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
 * own. The backend forgets a key as an operator or an expiry would ({@code DEL}); what it keeps is every key under the
 * prefix (the lock key, its queue and entries), but the instance registry.
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

    @Override
    public void forget(String key) {
        this.redis.command("DEL", PREFIX + key);
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
