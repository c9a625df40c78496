package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TestConnections;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Engines in this JVM on one Redis, each on a connection of its own (key prefix {@code kit:}), closed together. */
final class RedisEngines implements AutoCloseable {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final Map<String, LockEngine> engines = new LinkedHashMap<>();

    RedisEngines(RedisServer server, Duration lease, int count) {
        for (int i = 0; i < count; i++) {
            LettuceConnectionFactory factory = TestConnections.lettuce(server, Duration.ofSeconds(5));
            this.factories.add(factory);
            this.engines.put("engine-" + i, new RedisLockClient(factory, "kit:", lease, LockLossListener.NONE, null));
        }
    }

    /** The engines by name. */
    Map<String, LockEngine> byName() {
        return this.engines;
    }

    @Override
    public void close() {
        this.engines.values().forEach(LockEngine::close);
        this.factories.forEach(LettuceConnectionFactory::destroy);
    }
}
