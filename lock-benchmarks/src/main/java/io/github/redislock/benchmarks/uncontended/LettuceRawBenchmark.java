package io.github.redislock.benchmarks.uncontended;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.RawLettuceLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** One uncontended cycle on raw Lettuce: the floor every other figure is compared with. */
@State(Scope.Benchmark)
public class LettuceRawBenchmark {

    private RawLettuceLock lock;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.lock = new RawLettuceLock(BenchRedis.url(), 30_000);
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.lock.close();
    }

    @Benchmark
    public boolean cycle() {
        String key = RandomKeys.nextKey();
        String token = this.lock.tryLock(key);
        return token != null && this.lock.unlock(key, token);
    }
}
