package io.github.redislock.redis.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The one way the Redis stores load their Lua scripts: each {@code .lua} file sits on the class path next to the
 * class that runs it (the scripts both stores run next to this class; a store's own next to that store), is read
 * once per result type and kept, with its SHA-1, for the life of the class loader. Every script under
 * {@code io/github/redislock/} is registered for native images by {@link LockScriptsRuntimeHints}. Internal: used
 * by the Redis stores of this library, not part of its API.
 */
public final class LockScripts {

    /** Scripts read so far, by resource path and result type. */
    private static final Map<String, RedisScript<?>> LOADED = new ConcurrentHashMap<>();

    private LockScripts() {
    }

    /**
     * A script both Redis stores run, next to this class: {@code acquire.lua}, {@code renew.lua},
     * {@code unlock.lua}, {@code inspect.lua}.
     */
    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        return load(LockScripts.class, name, resultType);
    }

    /**
     * The script of that name in the package of {@code neighbour}, read on first use. A script built from a
     * String keeps its SHA-1; one built from a resource location ({@code RedisScript.of(Resource)}) checks the
     * resource for modification on every call, which the hot path should not pay for.
     */
    @SuppressWarnings("unchecked")
    public static <T> RedisScript<T> load(Class<?> neighbour, String name, Class<T> resultType) {
        ClassPathResource resource = new ClassPathResource(name, neighbour);
        return (RedisScript<T>) LOADED.computeIfAbsent(resource.getPath() + " -> " + resultType.getName(),
                (key) -> read(resource, resultType));
    }

    private static <T> RedisScript<T> read(ClassPathResource resource, Class<T> resultType) {
        try {
            return new DefaultRedisScript<>(resource.getContentAsString(StandardCharsets.UTF_8), resultType);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read Lua script " + resource, ex);
        }
    }
}
