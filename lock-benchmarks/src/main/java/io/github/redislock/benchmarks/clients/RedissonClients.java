package io.github.redislock.benchmarks.clients;

import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson clients on the benchmark Redis with Redisson's own defaults (connection pool, threads, lock
 * watchdog of 30 s): the peer as its users get it, untuned, like ours.
 */
public final class RedissonClients {

    private RedissonClients() {
    }

    public static RedissonClient create(String redisUrl) {
        Config config = new Config();
        config.useSingleServer().setAddress(redisUrl);
        return Redisson.create(config);
    }
}
