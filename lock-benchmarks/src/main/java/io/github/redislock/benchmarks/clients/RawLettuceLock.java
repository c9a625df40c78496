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
 * <p>
 * {@linkplain #fenced Fenced}, the take is a script instead that reads the server's clock and stores
 * {@code token:clock} with the same {@code SET NX PX}: the floor of a lock that issues a fencing token that only
 * grows, as a lock whose keys expire can only read it from the server in the step that takes the key. Its ratio to
 * the plain floor is what fencing alone costs.
 */
public final class RawLettuceLock implements AutoCloseable {

    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0";

    /** Takes the key under '<token>:<server clock in µs>'; returns that value, or false when the key is taken. */
    private static final String FENCED_TAKE = """
            local t = redis.call('TIME')
            local value = ARGV[1] .. ':' .. string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2]))
            if redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2]) then return value end
            return false""";

    private final RedisClient client;

    private final StatefulRedisConnection<String, String> connection;

    private final RedisCommands<String, String> commands;

    private final String unlockSha;

    private final SetArgs acquireArgs;

    private final String leaseMillis;

    private final String fencedTakeSha;

    /** The plain floor: {@code SET NX PX} + compare-and-delete. */
    public RawLettuceLock(String redisUrl, long leaseMillis) {
        this(redisUrl, leaseMillis, false);
    }

    /**
     * @param fenced whether the take is the fenced script (see the class comment) rather than {@code SET NX PX}
     */
    public static RawLettuceLock fenced(String redisUrl, long leaseMillis) {
        return new RawLettuceLock(redisUrl, leaseMillis, true);
    }

    private RawLettuceLock(String redisUrl, long leaseMillis, boolean fenced) {
        this.client = RedisClient.create(redisUrl);
        this.connection = this.client.connect();
        this.commands = this.connection.sync();
        this.unlockSha = this.commands.scriptLoad(COMPARE_AND_DELETE);
        this.acquireArgs = SetArgs.Builder.nx().px(leaseMillis);
        this.leaseMillis = Long.toString(leaseMillis);
        this.fencedTakeSha = fenced ? this.commands.scriptLoad(FENCED_TAKE) : null;
    }

    /** One attempt; returns the value to release with, or {@code null} when the key is taken. */
    public String tryLock(String key) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String token = Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
        if (this.fencedTakeSha != null) {
            return this.commands.evalsha(this.fencedTakeSha, ScriptOutputType.VALUE, new String[] { key }, token,
                    this.leaseMillis);
        }
        return "OK".equals(this.commands.set(key, token, this.acquireArgs)) ? token : null;
    }

    /** Deletes the key if it still holds the value; returns whether it did. */
    public boolean unlock(String key, String value) {
        Long deleted = this.commands.evalsha(this.unlockSha, ScriptOutputType.INTEGER, new String[] { key }, value);
        return deleted != null && deleted == 1L;
    }

    @Override
    public void close() {
        this.connection.close();
        this.client.shutdown();
    }
}
