package io.github.redislock.benchmarks.uncontended;

import java.util.concurrent.locks.Lock;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.IntegrationRegistry;
import io.github.redislock.benchmarks.clients.SpringContexts;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * One uncontended cycle ({@code obtain(key).tryLock()} + {@code unlock()}) on Spring Integration's
 * {@code RedisLockRegistry}, in both lock types: they differ in how they wait, and PUB_SUB also publishes on
 * every release, so even the uncontended cycle differs.
 */
@State(Scope.Benchmark)
public class IntegrationRegistryBenchmark {

    private ConfigurableApplicationContext context;

    private IntegrationRegistry spin;

    private IntegrationRegistry pubSub;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.context = SpringContexts.redisOnly(BenchRedis.url());
        RedisConnectionFactory connectionFactory = this.context.getBean(RedisConnectionFactory.class);
        this.spin = new IntegrationRegistry(connectionFactory, RedisLockType.SPIN_LOCK);
        this.pubSub = new IntegrationRegistry(connectionFactory, RedisLockType.PUB_SUB_LOCK);
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.spin.close();
        this.pubSub.close();
        this.context.close();
    }

    @Benchmark
    public boolean spinLock() {
        return cycle(this.spin.registry());
    }

    @Benchmark
    public boolean pubSubLock() {
        return cycle(this.pubSub.registry());
    }

    private static boolean cycle(RedisLockRegistry registry) {
        Lock lock = registry.obtain(RandomKeys.nextKey());
        if (!lock.tryLock()) {
            return false;
        }
        lock.unlock();
        return true;
    }
}
