package io.github.redislock.test;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads a lock key in Redis as the engine's scripts do: absent, or {@code ~:<fence>} (what releases by redis-lock
 * 0.1 left behind), is free; {@code ~kept:<fence>} is kept after its work ended (holdAtLeast), taken by nobody;
 * any other value is a holder's, or a hand-off to a waiting application.
 */
final class RedisLockKeyState implements LockKeyAssert.LockKeyState {

    private final RedisConnectionFactory connectionFactory;

    private final String key;

    RedisLockKeyState(RedisConnectionFactory connectionFactory, String key) {
        this.connectionFactory = connectionFactory;
        this.key = key;
    }

    @Override
    public @Nullable String holder() {
        byte[] value;
        try (RedisConnection connection = this.connectionFactory.getConnection()) {
            value = connection.stringCommands().get(this.key.getBytes(StandardCharsets.UTF_8));
        }
        if (value == null) {
            return null;
        }
        String text = new String(value, StandardCharsets.UTF_8);
        if (text.startsWith("~:")) {
            return null;
        }
        return text.startsWith("~kept:") ? LockKeyAssert.KEPT + ", value '" + text + "'" : "value '" + text + "'";
    }
}
