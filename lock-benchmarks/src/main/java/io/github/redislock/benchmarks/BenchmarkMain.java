package io.github.redislock.benchmarks;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

import io.github.redislock.benchmarks.hotkey.HotKeySuite;
import io.github.redislock.benchmarks.hotkey.SharedKeySuite;
import io.github.redislock.benchmarks.uncontended.UncontendedSuite;
import io.github.redislock.testsupport.RedisServer;

/**
 * Entry point of the benchmark jar: starts one private redis-server (and one ZooKeeper server in this JVM, for
 * the ZooKeeper rows), runs the uncontended JMH benchmarks and the hot-key harness against them in this one JVM,
 * and prints one table comparing redis-lock with raw Lettuce and its peers (on ZooKeeper: with Curator and Spring
 * Integration). One JVM and one Redis because the Redis-side figures (commands and CPU per lock
 * cycle) are read from that server's INFO counters, which must see only the load being measured.
 *
 * <pre>
 * mvn -B -q -Pbenchmarks -DskipTests package -pl lock-benchmarks -am
 * java -jar lock-benchmarks/target/redis-lock-benchmarks.jar [--quick]
 * </pre>
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        BenchmarkOptions options;
        try {
            options = BenchmarkOptions.parse(args);
        }
        catch (IllegalArgumentException ex) {
            System.err.println(ex.getMessage());
            System.err.print(BenchmarkOptions.USAGE);
            System.exit(2);
            return;
        }
        // Spring Boot would re-initialise logging for every context; logback.xml in this jar decides instead.
        System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
        long started = System.nanoTime();
        ResultTable table = new ResultTable();
        try (AutoCloseable stress = StressNg.start(options.stressCpus());
                RedisServer redis = RedisServer.start();
                AutoCloseable zooKeeper = BenchZooKeeper.start();
                PrintStream jmhLog = new PrintStream(new FileOutputStream(options.jmhLog().toFile()), true,
                        StandardCharsets.UTF_8)) {
            System.setProperty(BenchRedis.PORT_PROPERTY, Integer.toString(redis.port()));
            printHeader(options);
            if (options.uncontended()) {
                System.err.println("Uncontended (JMH, " + UncontendedSuite.countSelected(options.implementations())
                        + " benchmarks; details in " + options.jmhLog() + "):");
                table.addAll(new UncontendedSuite(options.mode(), jmhLog, System.err).run(options.implementations()));
            }
            if (options.hotKey()) {
                System.err.println("Hot key (timed harness, " + HotKeySuite.countSelected(options.implementations())
                        + " runs):");
                table.addAll(new HotKeySuite(options.mode(), System.err).run(options.implementations()));
            }
            if (options.shared()) {
                System.err.println("Shared keys (timed harness, " + SharedKeySuite.countSelected(options.implementations())
                        + " runs):");
                table.addAll(new SharedKeySuite(options.mode(), System.err).run(options.implementations()));
            }
        }
        System.out.println();
        if (table.isEmpty()) {
            System.out.println("Nothing was selected to run.");
        }
        else {
            table.print(System.out);
        }
        System.out.printf("Total time: %s%n", Duration.ofNanos(System.nanoTime() - started).withNanos(0));
    }

    /** The machine's load averages (1, 5, 15 min) as Linux gives them, or "unknown" elsewhere. */
    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return fields[0] + " " + fields[1] + " " + fields[2];
        }
        catch (IOException | RuntimeException ex) {
            return "unknown";
        }
    }

    private static void printHeader(BenchmarkOptions options) throws IOException {
        RunMode mode = options.mode();
        System.out.printf("redis-lock benchmarks, %s mode: Java %s (%s), Redis %s on 127.0.0.1, ZooKeeper %s in this "
                + "JVM, %d cores%n", mode.name(), System.getProperty("java.version"),
                System.getProperty("java.vm.name"), BenchRedis.version(), BenchZooKeeper.version(),
                Runtime.getRuntime().availableProcessors());
        System.out.printf(Locale.ROOT, "Uncontended: JMH 1.37 in this JVM (forks 0), %d threads, %d x %.1fs warm-up + "
                + "%d x %.1fs measured per benchmark, -prof gc + Redis INFO deltas.%n", UncontendedSuite.THREADS,
                mode.jmhWarmupIterations(), mode.jmhWarmupTime().toMillis() / 1000.0,
                mode.jmhMeasurementIterations(), mode.jmhMeasurementTime().toMillis() / 1000.0);
        System.out.printf("Hot key: timed harness, %ds warm-up + %ds measured per run, wait 10 s, lease 30 s (ours also renewed).%n",
                mode.hotKeyWarmup().toSeconds(), mode.hotKeyMeasurement().toSeconds());
        System.out.printf("Shared keys: the same harness, 4 clients x 4 threads, 1 ms section, semaphore of 4 and read-mostly "
                + "90/10.%n");
        System.out.printf("Beside: %s; load average at the start %s.%n",
                options.stressCpus() == 0 ? "nothing started by the run" : "stress-ng --cpu " + options.stressCpus(),
                loadAverage());
    }
}
