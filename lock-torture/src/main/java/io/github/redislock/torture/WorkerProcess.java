package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.ProcessSignals;

/**
 * One worker JVM the suite started ({@link Worker}), its output in a log file, and the faults a worker can suffer:
 * {@link #kill()} (SIGKILL, as a crash or an OOM killer), {@link #pause()}/{@link #resume()} (SIGSTOP/SIGCONT,
 * as a long GC pause or a frozen VM). Signals go by PID to this process only.
 */
final class WorkerProcess implements AutoCloseable {

    private final String id;

    private final Process process;

    private final Path log;

    private volatile boolean paused;

    private volatile boolean killed;

    private WorkerProcess(String id, Process process, Path log) {
        this.id = id;
        this.process = process;
        this.log = log;
    }

    /**
     * @param classPath the worker's class path: the suite's own, with a sabotage directory in front of it when
     * the run is told to break the library on purpose
     * @param wrapper what the JVM's command line starts with, e.g. {@code ip netns exec <namespace>} (which execs
     * the JVM, so that the PID is still the worker's), or nothing
     * @param environment extra environment variables, e.g. those that put it on a {@link FakeClock}
     */
    static WorkerProcess start(String id, String classPath, Map<String, String> properties, Path logDirectory,
            List<String> wrapper, Map<String, String> environment) {
        List<String> command = new ArrayList<>(wrapper);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-cp", classPath, Worker.class.getName()));
        properties.forEach((name, value) -> command.add("--" + name + "=" + value));
        command.add("--torture.worker=" + id);
        Path log = logDirectory.resolve(id + ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            return new WorkerProcess(id, process, log);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start worker " + id, ex);
        }
    }

    String id() {
        return this.id;
    }

    long pid() {
        return this.process.pid();
    }

    boolean isAlive() {
        return this.process.isAlive();
    }

    boolean wasKilled() {
        return this.killed;
    }

    /** SIGKILL, and waits until the process is gone. */
    void kill() {
        this.killed = true;
        this.process.destroyForcibly();
        awaitExit(30);
    }

    void pause() {
        signal("STOP");
        this.paused = true;
    }

    void resume() {
        signal("CONT");
        this.paused = false;
    }

    /** Waits for the worker to exit on its own; returns its exit code, or null if it is still running. */
    Integer awaitExit(long seconds) {
        try {
            return this.process.waitFor(seconds, TimeUnit.SECONDS) ? this.process.exitValue() : null;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for worker " + this.id, ex);
        }
    }

    /** The last lines the worker wrote, for a report on a worker that failed. */
    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(this.log);
            return String.join(System.lineSeparator(), all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (IOException ex) {
            return "(no log: " + ex.getMessage() + ")";
        }
    }

    private void signal(String signal) {
        ProcessSignals.send(this.process, signal);
    }

    /** Never leaves a process behind: resumes a paused one (so it can die) and kills it if still running. */
    @Override
    public void close() {
        if (this.process.isAlive()) {
            if (this.paused) {
                resume();
            }
            this.process.destroyForcibly();
            awaitExit(30);
        }
    }

    @Override
    public String toString() {
        return this.id + " (pid " + pid() + ")";
    }
}
