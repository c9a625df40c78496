package io.github.redislock.benchmarks.uncontended;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.RawLettuceRedlock;
import io.github.redislock.testsupport.RedisServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One uncontended cycle of {@link RawLettuceRedlock} over five masters, as {@link RedlockBenchmark}'s (the benchmark
 * Redis and four more): the floor a Redlock's figures are compared with. The table's Redis figures are the benchmark
 * Redis's, one node's share.
 */
@State(Scope.Benchmark)
public class LettuceRawRedlockBenchmark {

    private final List<RedisServer> nodes = new ArrayList<>();

    private RawLettuceRedlock lock;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        List<String> urls = new ArrayList<>(List.of(BenchRedis.url()));
        for (int i = 0; i < 4; i++) {
            RedisServer node = RedisServer.start();
            this.nodes.add(node);
            urls.add(node.url());
        }
        this.lock = new RawLettuceRedlock(urls, 30_000);
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.lock.close();
        this.nodes.forEach(RedisServer::close);
        this.nodes.clear();
    }

    @Benchmark
    public boolean cycle() {
        String key = RandomKeys.nextKey();
        String token = this.lock.tryLock(key);
        return token != null && this.lock.unlock(key, token);
    }
}
