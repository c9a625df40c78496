package io.github.redislock.integration;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TestConnections;

/**
 * Applications on one Redis, as separate processes would be: each an engine on a connection of its own, with the
 * losses its engine told ({@code <key> <detection>}), and registries over it. Closed after each test.
 */
final class RedisApplications implements AutoCloseable {

    private final RedisServer redis;

    private final List<AutoCloseable> opened = new ArrayList<>();

    final List<String> losses = new CopyOnWriteArrayList<>();

    RedisApplications(RedisServer redis) {
        this.redis = redis;
    }

    /** A new application's engine (a 30 s renewed lease of its own, which the registry does not use). */
    LockEngine engine() {
        LettuceConnectionFactory connections = TestConnections.lettuce(this.redis, Duration.ofSeconds(5));
        LockEngine engine = new RedisLockClient(connections, "", Duration.ofSeconds(30),
                (key, token, fence, detection) -> this.losses.add(key + " " + detection), null);
        this.opened.add(() -> TestConnections.destroy(connections));
        this.opened.add(engine);
        return engine;
    }

    /** A registry over a new application's engine. */
    DistributedLockRegistry registry(Duration leaseTime) {
        DistributedLockRegistry registry = new DistributedLockRegistry(engine(), leaseTime);
        this.opened.add(registry::destroy);
        return registry;
    }

    @Override
    public void close() throws Exception {
        for (int i = this.opened.size() - 1; i >= 0; i--) {
            this.opened.get(i).close();
        }
    }
}
