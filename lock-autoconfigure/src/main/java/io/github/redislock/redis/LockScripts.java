package io.github.redislock.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/** Loads the Lua scripts that sit next to this class on the classpath. */
final class LockScripts {

    private LockScripts() {
    }

    /**
     * Reads the script once. A script built from a String keeps its SHA-1; one built from a resource location
     * checks the resource for modification on every call, which the hot path should not pay for.
     */
    static <T> RedisScript<T> load(String name, Class<T> resultType) {
        ClassPathResource resource = new ClassPathResource(name, LockScripts.class);
        try {
            return new DefaultRedisScript<>(resource.getContentAsString(StandardCharsets.UTF_8), resultType);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read Lua script " + resource, ex);
        }
    }
}
