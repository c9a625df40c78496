package io.github.redislock.benchmarks.uncontended;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.testsupport.RedisServer;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * The lock cycles of {@link OursBenchmark} (the suite runs the renewed-lease template cycle) with replica
 * acknowledgement: the benchmark Redis gets one replica, and every acquisition waits for {@code WAIT 1}.
 */
@State(Scope.Benchmark)
public class ReplicaAckBenchmark extends OursBenchmark {

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
