package io.github.redislock.benchmarks.uncontended;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import io.github.redislock.benchmarks.Figure;
import io.github.redislock.benchmarks.Implementations;
import io.github.redislock.benchmarks.RunMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs the uncontended JMH benchmarks one by one, in this JVM ({@code forks(0)}: the benchmark Redis and
 * its INFO counters belong to this process), with 8 threads, JMH's GC profiler (allocation per cycle) and
 * {@link RedisLoadProfiler} (Redis commands and CPU per cycle), and turns each result into table figures. The
 * ZooKeeper rows (on {@link io.github.redislock.benchmarks.BenchZooKeeper}) form a section of their own, without
 * the Redis figures.
 * JMH's own iteration-by-iteration output goes to a log file, so the console shows only progress and the
 * final table.
 */
public final class UncontendedSuite {

    public static final String SECTION = "uncontended: 8 threads, random keys of 1M";

    /** The ZooKeeper rows: compared among themselves (the Redis figures would be the benchmark Redis's idle). */
    public static final String ZOOKEEPER_SECTION = "uncontended on ZooKeeper: 8 threads, random keys of 1M";

    public static final int THREADS = 8;

    /** The floor first: it warms the Netty and Lettuce code every later case shares. */
    private static final List<Case> CASES = List.of(
            new Case(Implementations.LETTUCE_RAW, LettuceRawBenchmark.class, "cycle"),
            new Case(Implementations.LETTUCE_RAW_FENCED, LettuceRawBenchmark.class, "fencedCycle"),
            new Case(Implementations.NAIVE_TEMPLATE, NaiveTemplateBenchmark.class, "cycle"),
            new Case(Implementations.OURS_ANNOTATED, OursBenchmark.class, "annotatedFixedLease"),
            new Case(Implementations.OURS_SUSPEND, OursBenchmark.class, "suspendFixedLease"),
            new Case(Implementations.OURS_ANNOTATED_RENEWED, OursBenchmark.class, "annotatedRenewedLease"),
            new Case(Implementations.OURS_TEMPLATE, OursBenchmark.class, "templateFixedLease"),
            new Case(Implementations.OURS_TEMPLATE_RENEWED, OursBenchmark.class, "templateRenewedLease"),
            new Case(Implementations.OURS_REPLICA_ACK, ReplicaAckBenchmark.class, "templateRenewedLease"),
            new Case(Implementations.LETTUCE_RAW_REDLOCK, LettuceRawRedlockBenchmark.class, "cycle"),
            new Case(Implementations.OURS_REDLOCK, RedlockBenchmark.class, "templateRenewedLease"),
            new Case(Implementations.REDISSON, RedissonBenchmark.class, "fixedLease"),
            new Case(Implementations.REDISSON_WATCHDOG, RedissonBenchmark.class, "watchdog"),
            new Case(Implementations.REDISSON_MULTI_LOCK, RedissonMultiMasterBenchmark.class, "multiLock"),
            new Case(Implementations.REDISSON_RED_LOCK, RedissonMultiMasterBenchmark.class, "redLock"),
            new Case(Implementations.SI_SPIN, IntegrationRegistryBenchmark.class, "spinLock"),
            new Case(Implementations.SI_PUBSUB, IntegrationRegistryBenchmark.class, "pubSubLock"),
            new Case(Implementations.OURS_ZOOKEEPER, ZooKeeperBenchmark.class, "ours", ZOOKEEPER_SECTION),
            new Case(Implementations.CURATOR_MUTEX, ZooKeeperBenchmark.class, "curatorMutex", ZOOKEEPER_SECTION),
            new Case(Implementations.SI_ZOOKEEPER, ZooKeeperBenchmark.class, "integrationRegistry",
                    ZOOKEEPER_SECTION));

    private final RunMode mode;

    private final PrintStream jmhLog;

    private final PrintStream progress;

    /**
     * @param jmhLog where JMH's detailed output goes
     * @param progress where one line per finished benchmark goes
     */
    public UncontendedSuite(RunMode mode, PrintStream jmhLog, PrintStream progress) {
        this.mode = mode;
        this.jmhLog = jmhLog;
        this.progress = progress;
    }

    public static long countSelected(Predicate<String> selected) {
        return CASES.stream().filter((c) -> selected.test(c.implementation())).count();
    }

    public List<Figure> run(Predicate<String> selected) throws RunnerException {
        List<Figure> redis = new ArrayList<>();
        List<Figure> zooKeeper = new ArrayList<>();
        for (Case benchmark : CASES) {
            if (!selected.test(benchmark.implementation())) {
                continue;
            }
            RunResult result = runOne(benchmark);
            double throughput = result.getPrimaryResult().getScore();
            double allocation = secondary(result, "gc.alloc.rate.norm");
            String name = benchmark.implementation();
            String section = benchmark.section();
            List<Figure> figures = section.equals(SECTION) ? redis : zooKeeper;
            figures.add(new Figure(section, "throughput", "cycles/s", name, throughput,
                    result.getPrimaryResult().getScoreError()));
            figures.add(new Figure(section, "allocation", "B/cycle", name, allocation));
            if (!section.equals(SECTION)) {
                this.progress.printf(Locale.ROOT, "  uncontended %-24s %,10.0f cycles/s  %,8.0f B/cycle%n", name,
                        throughput, allocation);
                continue;
            }
            double commands = secondary(result, RedisLoadProfiler.COMMANDS);
            double cpu = secondary(result, RedisLoadProfiler.CPU_MICROS);
            figures.add(new Figure(section, "Redis commands", "per cycle", name, commands));
            figures.add(new Figure(section, "Redis CPU", "us/cycle", name, cpu));
            this.progress.printf(Locale.ROOT,
                    "  uncontended %-24s %,10.0f cycles/s  %,8.0f B/cycle  %5.2f cmds  %6.2f us Redis CPU%n",
                    name, throughput, allocation, commands, cpu);
        }
        List<Figure> figures = new ArrayList<>(Figure.groupedByMetric(redis));
        figures.addAll(Figure.groupedByMetric(zooKeeper));
        return figures;
    }

    private RunResult runOne(Case benchmark) throws RunnerException {
        Options options = new OptionsBuilder()
            .include(Pattern.quote(benchmark.type().getName() + "." + benchmark.method()) + "$")
            .forks(0)
            .threads(THREADS)
            .mode(Mode.Throughput)
            .timeUnit(TimeUnit.SECONDS)
            .warmupIterations(this.mode.jmhWarmupIterations())
            .warmupTime(TimeValue.milliseconds(this.mode.jmhWarmupTime().toMillis()))
            .measurementIterations(this.mode.jmhMeasurementIterations())
            .measurementTime(TimeValue.milliseconds(this.mode.jmhMeasurementTime().toMillis()))
            .addProfiler(GCProfiler.class)
            .addProfiler(RedisLoadProfiler.class)
            .shouldFailOnError(true)
            .build();
        Runner runner = new Runner(options, OutputFormatFactory.createFormatInstance(this.jmhLog, VerboseMode.NORMAL));
        Collection<RunResult> results = runner.run();
        if (results.size() != 1) {
            throw new IllegalStateException("Expected one result for " + benchmark + ", got " + results.size());
        }
        return results.iterator().next();
    }

    private static double secondary(RunResult result, String label) {
        Result<?> secondary = result.getSecondaryResults().get(label);
        return (secondary != null) ? secondary.getScore() : Double.NaN;
    }


    /** One benchmark method, the table name it appears under, and its section (which store it runs on). */
    private record Case(String implementation, Class<?> type, String method, String section) {

        Case(String implementation, Class<?> type, String method) {
            this(implementation, type, method, SECTION);
        }
    }
}
