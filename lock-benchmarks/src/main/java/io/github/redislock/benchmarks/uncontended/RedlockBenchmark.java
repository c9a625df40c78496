package io.github.redislock.benchmarks.uncontended;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.testsupport.RedisServer;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The lock cycles of {@link OursBenchmark} (the suite runs the renewed-lease template cycle) on Redlock over
 * five masters: the benchmark Redis and four more. The table's Redis figures are the benchmark Redis's, so
 * one node's share of the work.
 */
@State(Scope.Benchmark)
public class RedlockBenchmark extends OursBenchmark {

    private final List<RedisServer> nodes = new ArrayList<>();

    @Override
    protected String[] lockProperties() {
        List<String> urls = new ArrayList<>(List.of(BenchRedis.url()));
        for (int i = 0; i < 4; i++) {
            RedisServer node = RedisServer.start();
            this.nodes.add(node);
            urls.add(node.url());
        }
        return new String[] { "redis-lock.redlock.nodes=" + String.join(",", urls) };
    }

    @Override
    protected void stopped() {
        this.nodes.forEach(RedisServer::close);
        this.nodes.clear();
    }
}
