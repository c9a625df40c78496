package io.github.redislock.benchmarks.clients;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * A Spring Integration {@code RedisLockRegistry} with a 30 s expiry (like the other locks' lease) and
 * otherwise the registry's defaults (100 ms between spin attempts, 100,000 cached lock objects, a cached
 * thread pool for releases and pub/sub dispatch).
 * <p>
 * The thread pool is the same kind the registry would create, but owned here: the registry's
 * {@code destroy()} shuts its own pool down before it stops its pub/sub listener, so an unlock message
 * arriving in between is rejected with a logged error. Owning the pool lets the listener stop first.
 */
public final class IntegrationRegistry implements AutoCloseable {

    /** One registry key for all, so registries on different connections contend for the same Redis keys. */
    private static final String REGISTRY_KEY = "si";

    private final ExecutorService executor =
            Executors.newCachedThreadPool(new CustomizableThreadFactory("redis-lock-registry-"));

    private final RedisLockRegistry registry;

    public IntegrationRegistry(RedisConnectionFactory connectionFactory, RedisLockType type) {
        this.registry = new RedisLockRegistry(connectionFactory, REGISTRY_KEY, Duration.ofSeconds(30));
        this.registry.setRedisLockType(type);
        this.registry.setExecutor(this.executor);
    }

    public RedisLockRegistry registry() {
        return this.registry;
    }

    @Override
    public void close() {
        this.registry.destroy();
        this.executor.shutdown();
    }
}
