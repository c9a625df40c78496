package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redislock.benchmarks.clients.IntegrationRegistry;
import io.github.redislock.benchmarks.clients.SpringContexts;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * A Spring Integration {@code RedisLockRegistry} on its own Boot connection, {@code tryLock(10 s)}. The two
 * threads of one instance share the registry's lock object, so they first queue on its local
 * {@code ReentrantLock}, by design of the registry.
 */
final class IntegrationContendedLock implements ContendedLock {

    private final ConfigurableApplicationContext context;

    private final IntegrationRegistry registry;

    IntegrationContendedLock(String redisUrl, RedisLockType type) {
        this.context = SpringContexts.redisOnly(redisUrl);
        this.registry = new IntegrationRegistry(this.context.getBean(RedisConnectionFactory.class), type);
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        Lock lock = this.registry.registry().obtain(HOT_KEY);
        if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            lock.unlock();
        }
        return true;
    }

    @Override
    public void close() {
        this.registry.close();
        this.context.close();
    }
}
