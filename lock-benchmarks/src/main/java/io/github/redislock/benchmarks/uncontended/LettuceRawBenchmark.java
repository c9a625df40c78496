package io.github.redislock.benchmarks.uncontended;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.RawLettuceLock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One uncontended cycle on raw Lettuce: the floor every other figure is compared with ({@link #cycle}), and the same
 * with the fenced take ({@link #fencedCycle}), the floor of a lock that issues fencing tokens.
 */
@State(Scope.Benchmark)
public class LettuceRawBenchmark {

    private RawLettuceLock lock;

    private RawLettuceLock fencedLock;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.lock = new RawLettuceLock(BenchRedis.url(), 30_000);
        this.fencedLock = RawLettuceLock.fenced(BenchRedis.url(), 30_000);
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.lock.close();
        this.fencedLock.close();
    }

    @Benchmark
    public boolean cycle() {
        return cycle(this.lock);
    }

    @Benchmark
    public boolean fencedCycle() {
        return cycle(this.fencedLock);
    }

    private static boolean cycle(RawLettuceLock lock) {
        String key = RandomKeys.nextKey();
        String value = lock.tryLock(key);
        return value != null && lock.unlock(key, value);
    }
}
