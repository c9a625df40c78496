package io.github.redislock.benchmarks.uncontended;

import java.time.Duration;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.NaiveTemplateLock;
import io.github.redislock.benchmarks.clients.SpringContexts;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/** One uncontended cycle of the hand-written StringRedisTemplate lock, on Boot's connection. */
@State(Scope.Benchmark)
public class NaiveTemplateBenchmark {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private ConfigurableApplicationContext context;

    private NaiveTemplateLock lock;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.context = SpringContexts.redisOnly(BenchRedis.url());
        this.lock = new NaiveTemplateLock(this.context.getBean(StringRedisTemplate.class));
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.context.close();
    }

    @Benchmark
    public boolean cycle() {
        String key = RandomKeys.nextKey();
        String token = this.lock.tryLock(key, LEASE);
        return token != null && this.lock.unlock(key, token);
    }
}
