package io.github.redislock.benchmarks.uncontended;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.testsupport.RedisServer;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The lock cycles of {@link OursBenchmark} on the two safer topologies (the suite runs the renewed-lease
 * template cycle): replica acknowledgement (the benchmark Redis as master with one replica, {@code WAIT 1}) and
 * Redlock over five masters (the benchmark Redis and four more). The Redis figures of the table are the
 * benchmark Redis's: for Redlock, one node's share of the work.
 */
public final class TopologyBenchmark {

    private TopologyBenchmark() {
    }

    /** Every acquisition waits for one replica to acknowledge it. */
    @State(Scope.Benchmark)
    public static class ReplicaAck extends OursBenchmark {

        private RedisServer replica;

        @Override
        protected String[] lockProperties() {
            String[] master = BenchRedis.url().substring("redis://".length()).split(":");
            this.replica = RedisServer.builder().arguments("--replicaof", master[0], master[1]).start();
            BenchRedis.awaitReplicas(1);
            return new String[] { "redis-lock.replicas-to-acknowledge=1", "redis-lock.replication-timeout=1s" };
        }

        @Override
        protected void stopped() {
            this.replica.close();
        }
    }

    /** Redlock over the benchmark Redis and four more masters. */
    @State(Scope.Benchmark)
    public static class Redlock extends OursBenchmark {

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
}
