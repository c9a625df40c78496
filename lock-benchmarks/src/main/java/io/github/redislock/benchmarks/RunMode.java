package io.github.redislock.benchmarks;

import java.time.Duration;

/**
 * How long each measurement runs. The full mode gives usable figures in about 21 minutes on two cores;
 * the quick mode is a three-minute smoke run that shows every benchmark works and roughly where it lands
 * (still three measured iterations, so JMH can state an error).
 *
 * @param name shown in the report
 * @param jmhWarmupIterations warm-up iterations per uncontended JMH benchmark
 * @param jmhWarmupTime length of one JMH warm-up iteration
 * @param jmhMeasurementIterations measured iterations per uncontended JMH benchmark
 * @param jmhMeasurementTime length of one measured JMH iteration
 * @param hotKeyWarmup contention before the hot-key measurement window opens
 * @param hotKeyMeasurement length of the hot-key measurement window
 */
public record RunMode(String name, int jmhWarmupIterations, Duration jmhWarmupTime, int jmhMeasurementIterations,
        Duration jmhMeasurementTime, Duration hotKeyWarmup, Duration hotKeyMeasurement) {

    /**
     * Three warm-up iterations of 5 s: in a fresh JVM the first of our rows (annotated) still climbed for some 12 s,
     * the JIT compiling the engine that the later rows then found compiled.
     */
    public static final RunMode FULL = new RunMode("full", 3, Duration.ofSeconds(5), 4, Duration.ofSeconds(5),
            Duration.ofSeconds(3), Duration.ofSeconds(12));

    public static final RunMode QUICK = new RunMode("quick", 1, Duration.ofSeconds(3), 3, Duration.ofMillis(1500),
            Duration.ofSeconds(1), Duration.ofSeconds(3));
}
