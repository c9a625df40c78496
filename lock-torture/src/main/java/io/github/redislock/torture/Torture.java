package io.github.redislock.torture;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * Runs the scenarios of one command line in turn, each on fresh servers, against one witness server, and prints
 * the table. Workers get this JVM's class path (with the sabotage directory in front, if asked for); their logs
 * go to a temporary directory that is deleted when every scenario passed and kept otherwise.
 */
final class Torture {

    private final TortureOptions options;

    private final PrintStream out;

    private final @Nullable Runner runner;

    Torture(TortureOptions options, PrintStream out) {
        this(options, out, null);
    }

    /**
     * @param runner what runs each scenario to its verdict instead of a {@link ScenarioRun} (the suite's own tests of
     * the report), or null
     */
    Torture(TortureOptions options, PrintStream out, @Nullable Runner runner) {
        this.options = options;
        this.out = out;
        this.runner = runner;
    }

    /** Runs one prepared scenario to its verdict. */
    @FunctionalInterface
    interface Runner {

        ScenarioResult run(Scenario scenario, String client);
    }

    List<ScenarioResult> run() {
        Path logs = temporaryDirectory("redis-lock-torture-");
        String classPath = System.getProperty("java.class.path");
        if (this.options.sabotage() != null) {
            Path sabotage = this.options.sabotage().writeTo(logs.resolve("sabotage"));
            classPath = sabotage + java.io.File.pathSeparator + classPath;
            this.out.println("SABOTAGED on purpose: " + this.options.sabotage().id());
        }
        if (this.options.external()) {
            this.out.println("WARNING: locking on your Redis; the suite writes and deletes keys under "
                    + "'redis-lock-torture:' there. It never signals your servers.");
        }
        this.out.println("redis-lock torture: " + this.options.workers() + " workers x " + this.options.threads()
                + " threads, " + this.options.resources() + " resources, lease " + this.options.lease().toMillis()
                + " ms (fixed " + this.options.fixedLease().toMillis() + " ms), on " + this.options.clients()
                + "; Redis " + RedisBinary.describe()
                + (this.options.scenarios().stream().anyMatch(Scenario::onZooKeeper)
                        ? "; ZooKeeper " + ZooKeeperServerProcess.version() + " on Curator" : "")
                + "; Java " + Runtime.version() + "; worker logs in " + logs);
        if (this.options.scenarios().stream().anyMatch((s) -> s.requirement() == Scenario.Requirement.FAKETIME_REDIS)) {
            FakedRedis.note().ifPresent((note) -> this.out.println("Note: " + note));
        }
        List<ScenarioResult> results = new ArrayList<>();
        try (RedisServer witness = RedisServer.start()) {
            for (TortureOptions.Run run : this.options.runs()) {
                Scenario scenario = run.scenario();
                String client = run.client();
                this.out.println("scenario " + scenario.id() + " on " + client + ": " + scenario.description());
                Optional<String> unavailable = scenario.requirement().unavailable();
                if (unavailable.isPresent()) {
                    this.out.println("  SKIPPED: " + unavailable.get());
                    results.add(ScenarioResult.skipped(scenario, client, unavailable.get()));
                    continue;
                }
                ScenarioResult result = runOne(scenario, client, witness, logs, classPath);
                this.out.println("  " + (result.passed() ? "pass" : "FAIL " + result.failures()) + " ("
                        + result.sections() + " sections, " + result.wallTime().toSeconds() + " s)");
                results.add(result);
            }
        }
        this.out.println();
        this.out.println(ResultTable.render(results));
        if (results.stream().noneMatch(ScenarioResult::failed)) {
            deleteRecursively(logs);
        }
        else {
            this.out.println("Worker logs kept in " + logs);
        }
        return results;
    }

    /**
     * One scenario to its verdict; one that throws on its way (a server or worker that does not start, a fault
     * that cannot be injected) fails with the exception's message, and the next scenario runs. Its processes are
     * stopped by {@link ScenarioRun} whatever happens; the stack trace goes to the worker log directory, kept since
     * the run failed.
     */
    private ScenarioResult runOne(Scenario scenario, String client, RedisServer witness, Path logs, String classPath) {
        long started = System.nanoTime();
        try {
            return (this.runner != null) ? this.runner.run(scenario, client)
                    : new ScenarioRun(scenario, client, this.options, witness, logs, classPath).run();
        }
        catch (RuntimeException ex) {
            Path trace = logs.resolve(scenario.id() + "-" + client + "-failure.txt");
            try (PrintStream file = new PrintStream(Files.newOutputStream(trace), true, StandardCharsets.UTF_8)) {
                ex.printStackTrace(file);
            }
            catch (IOException io) {
                ex.addSuppressed(io);
            }
            String message = String.valueOf(ex.getMessage()).strip().lines().findFirst().orElse("");
            return ScenarioResult.failedToRun(scenario, client, ex.getClass().getSimpleName() + ": " + message
                    + " (stack trace in " + trace + ")", Duration.ofNanos(System.nanoTime() - started));
        }
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Path temporaryDirectory(String prefix) {
        try {
            return Files.createTempDirectory(prefix);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
