package io.github.redislock.benchmarks.clients;

import java.util.concurrent.ThreadLocalRandom;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The floor of what any Redis lock costs: {@code SET key token NX PX lease} to take it and an
 * {@code EVALSHA} of a compare-and-delete script to release it, straight on one shared Lettuce connection,
 * with no framework in between and the cheapest unique-enough token. Every real lock does at least these two
 * round trips; the ratio of anything else to this is its overhead.
 */
public final class RawLettuceLock implements AutoCloseable {

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

    private final RedisClient client;

    private final StatefulRedisConnection<String, String> connection;

    private final RedisCommands<String, String> commands;

    private final String unlockSha;

    private final SetArgs acquireArgs;

    public RawLettuceLock(String redisUrl, long leaseMillis) {
        this.client = RedisClient.create(redisUrl);
        this.connection = this.client.connect();
        this.commands = this.connection.sync();
        this.unlockSha = this.commands.scriptLoad(COMPARE_AND_DELETE);
        this.acquireArgs = SetArgs.Builder.nx().px(leaseMillis);
    }

    /** One attempt; returns the token to release with, or {@code null} when the key is taken. */
    public String tryLock(String key) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
        return "OK".equals(this.commands.set(key, token, this.acquireArgs)) ? token : null;
    }

    /** Deletes the key if it still holds the token; returns whether it did. */
    public boolean unlock(String key, String token) {
        Long deleted = this.commands.evalsha(this.unlockSha, ScriptOutputType.INTEGER, new String[] { key }, token);
        return deleted != null && deleted == 1L;
    }

    @Override
    public void close() {
        this.connection.close();
        this.client.shutdown();
    }
}
