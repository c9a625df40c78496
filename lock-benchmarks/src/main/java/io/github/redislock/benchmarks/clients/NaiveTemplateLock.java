package io.github.redislock.benchmarks.clients;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The lock most projects write by hand before they reach for a library: {@code setIfAbsent} with a timeout
 * and a UUID token, released by a compare-and-delete script through {@code StringRedisTemplate}. It is the
 * baseline for "what does a Spring-based lock cost without any extra features".
 */
public final class NaiveTemplateLock {

    private static final RedisScript<Long> COMPARE_AND_DELETE = new DefaultRedisScript<>(
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
            Long.class);

    private final StringRedisTemplate redis;

    public NaiveTemplateLock(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** One attempt; returns the token to release with, or {@code null} when the key is taken. */
    public String tryLock(String key, Duration lease) {
        String token = UUID.randomUUID().toString();
        return Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(key, token, lease)) ? token : null;
    }

    /** Deletes the key if it still holds the token; returns whether it did. */
    public boolean unlock(String key, String token) {
        Long deleted = this.redis.execute(COMPARE_AND_DELETE, List.of(key), token);
        return deleted != null && deleted == 1L;
    }
}
