package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import io.github.redislock.redis.support.LockScripts;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/** Lock commands through Spring Data Redis: works with every connection factory (Lettuce, Jedis, cluster). */
final class TemplateLockCommands implements LockCommands {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> ACQUIRE = LockScripts.load("acquire.lua", List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> RENEW = LockScripts.load("renew.lua", List.class);

    private static final byte[] RENEW_BODY = RENEW.getScriptAsString().getBytes(StandardCharsets.UTF_8);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SHARE = LockScripts.load("share.lua", List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> RENEW_SHARES = LockScripts.load("share-renew.lua", List.class);

    private static final byte[] RENEW_SHARES_BODY = RENEW_SHARES.getScriptAsString().getBytes(StandardCharsets.UTF_8);

    private static final RedisScript<Long> UNLOCK = LockScripts.load("unlock.lua", Long.class);

    private final StringRedisTemplate redis;

    TemplateLockCommands(RedisConnectionFactory connectionFactory) {
        this.redis = new StringRedisTemplate(connectionFactory);
    }

    @Override
    public List<?> acquire(LockKey key, boolean mayQueue, String[] args) {
        return this.redis.execute(ACQUIRE, mayQueue ? key.scriptKeyList() : List.of(key.name), (Object[]) args);
    }

    @Override
    public Long release(LockKey key, String[] args) {
        return this.redis.execute(UNLOCK, key.scriptKeyList(), (Object[]) args);
    }

    @Override
    public String serverVersion() {
        Properties info = this.redis.execute((RedisCallback<Properties>) (connection) -> connection.serverCommands()
            .info("server"));
        if (info == null) {
            return "";
        }
        // A cluster connection answers for every node, each property prefixed with the node's address; the
        // lowest version decides what all nodes can do.
        String lowest = null;
        for (String name : info.stringPropertyNames()) {
            if (name.equals("redis_version") || name.endsWith(".redis_version")) {
                String version = info.getProperty(name);
                if (lowest == null || RedisVersion.compare(version, lowest) < 0) {
                    lowest = version;
                }
            }
        }
        return (lowest != null) ? lowest : "";
    }

    @Override
    public List<?> renew(String[] keys, String[] args) {
        return this.redis.execute(RENEW, Arrays.asList(keys), (Object[]) args);
    }

    @Override
    public List<?> share(String[] keys, String[] args) {
        return this.redis.execute(SHARE, Arrays.asList(keys), (Object[]) args);
    }

    @Override
    public List<?> renewShares(String[] keys, String[] args) {
        return this.redis.execute(RENEW_SHARES, Arrays.asList(keys), (Object[]) args);
    }

    @Override
    public long renewAndWait(boolean share, String[] keys, String[] args, int replicas, long timeoutMillis) {
        byte[][] keysAndArgs = new byte[keys.length + args.length][];
        for (int i = 0; i < keysAndArgs.length; i++) {
            keysAndArgs[i] = bytes((i < keys.length) ? keys[i] : args[i - keys.length]);
        }
        Long acknowledged = this.redis.execute((RedisCallback<Long>) (connection) -> {
            // One connection for both: WAIT counts the writes made on its own connection only.
            List<?> renewed = connection.scriptingCommands().eval(share ? RENEW_SHARES_BODY : RENEW_BODY,
                    ReturnType.MULTI, keys.length, keysAndArgs);
            if (renewed == null || ((Number) renewed.get(0)).longValue() != 1L) {
                return -1L;
            }
            Object replies = connection.execute("WAIT", bytes(Integer.toString(replicas)),
                    bytes(Long.toString(timeoutMillis)));
            return ((Number) replies).longValue();
        });
        return (acknowledged != null) ? acknowledged : -1;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A pooled or per-node connection per command: no order between two commands. */
    @Override
    public boolean keepsOrder() {
        return false;
    }

    @Override
    public void releaseBehind(LockKey key, String[] args) {
        release(key, args);
    }

    @Override
    public String get(String key) {
        return this.redis.opsForValue().get(key);
    }
}
