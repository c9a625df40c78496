package io.github.redislock.core;

import java.util.Collections;
import java.util.List;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/** Lock commands through Spring Data Redis: works with every connection factory (Lettuce, Jedis, cluster). */
final class TemplateLockCommands implements LockCommands {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> ACQUIRE = LockScripts.load("acquire.lua", List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> RENEW = LockScripts.load("renew.lua", List.class);

    private static final RedisScript<Long> UNLOCK = LockScripts.load("unlock.lua", Long.class);

    private final StringRedisTemplate redis;

    TemplateLockCommands(RedisConnectionFactory connectionFactory) {
        this.redis = new StringRedisTemplate(connectionFactory);
    }

    @Override
    public List<?> acquire(String key, String fenceKey, String token, String leaseMillis) {
        return this.redis.execute(ACQUIRE, List.of(key, fenceKey), token, leaseMillis);
    }

    @Override
    public Long release(String key, String token, String channel) {
        return this.redis.execute(UNLOCK, Collections.singletonList(key), token, channel);
    }

    @Override
    public List<?> renew(List<String> keys, Object[] args) {
        return this.redis.execute(RENEW, keys, args);
    }

    @Override
    public String get(String key) {
        return this.redis.opsForValue().get(key);
    }
}
