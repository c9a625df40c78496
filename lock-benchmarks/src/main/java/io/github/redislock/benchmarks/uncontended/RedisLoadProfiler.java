package io.github.redislock.benchmarks.uncontended;

import java.util.Collection;
import java.util.List;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.RedisLoad;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler for the server side: per iteration, the Redis commands executed and Redis CPU time spent,
 * divided by all operations of that iteration (like {@code gc.alloc.rate.norm}). Client-side throughput
 * alone hides a lock that is cheap for the caller but heavy for a Redis shared by many services.
 * <p>
 * It needs the benchmark Redis to be the only load on that server; {@link BenchRedis} runs a private one.
 */
public class RedisLoadProfiler implements InternalProfiler {

    /** Secondary-result label: Redis commands (script-internal ones included) per operation. */
    public static final String COMMANDS = "redis.cmds.norm";

    /** Secondary-result label: Redis CPU microseconds (user + sys) per operation. */
    public static final String CPU_MICROS = "redis.cpu.norm";

    private RedisLoad before;

    @Override
    public String getDescription() {
        return "Redis commands and CPU time per operation, from INFO deltas around each iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        this.before = BenchRedis.load();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        RedisLoad delta = BenchRedis.load().since(this.before);
        long operations = result.getMetadata().getAllOps();
        return List.of(
                new ScalarResult(COMMANDS, delta.commandsPer(operations), "cmds/op", AggregationPolicy.AVG),
                new ScalarResult(CPU_MICROS, delta.cpuMicrosPer(operations), "us/op", AggregationPolicy.AVG));
    }
}
