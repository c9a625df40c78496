package io.github.redislock.benchmarks.uncontended;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.RedissonClients;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/**
 * One uncontended cycle on a Redisson {@code RLock}: with a fixed 30 s lease (as our fixed lease) and with
 * the watchdog (lease -1, renewed while held, as our renewed lease).
 */
@State(Scope.Benchmark)
public class RedissonBenchmark {

    private RedissonClient redisson;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.redisson = RedissonClients.create(BenchRedis.url());
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.redisson.shutdown();
    }

    @Benchmark
    public boolean fixedLease() throws InterruptedException {
        return cycle(30);
    }

    @Benchmark
    public boolean watchdog() throws InterruptedException {
        return cycle(-1);
    }

    private boolean cycle(long leaseSeconds) throws InterruptedException {
        RLock lock = this.redisson.getLock(RandomKeys.nextKey());
        if (!lock.tryLock(0, leaseSeconds, TimeUnit.SECONDS)) {
            return false;
        }
        lock.unlock();
        return true;
    }
}
