package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The operating-system process behind one {@link RedisServer}: its command line and work directory, start-up
 * until it answers PING, signals, and stop. Persistence is off, so every launch comes back empty. Not
 * thread-safe: {@link RedisServer} calls it under its own lock.
 */
final class RedisProcess {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Path binary;

    /** The address it binds and is reached at: loopback unless given another (a network namespace's). */
    private final String host;

    /** A command prefix the process starts under (e.g. {@code ip netns exec <name>}), or empty. */
    private final List<String> wrapper;

    private final int port;

    private final List<String> extraArguments;

    /** Extra environment variables of the process (e.g. LD_PRELOAD of a library that fakes its clock). */
    private final Map<String, String> environment;

    /** Sentinel mode: the lines of its configuration file, written before the first launch; else null. */
    private final List<String> sentinelConfig;

    private final Path workDir;

    private Process process;

    private boolean paused;

    RedisProcess(Path binary, String host, List<String> wrapper, int port, List<String> extraArguments,
            Map<String, String> environment, List<String> sentinelConfig) {
        this.binary = binary;
        this.host = host;
        this.wrapper = List.copyOf(wrapper);
        this.port = port;
        this.extraArguments = List.copyOf(extraArguments);
        this.environment = Map.copyOf(environment);
        this.sentinelConfig = (sentinelConfig != null) ? List.copyOf(sentinelConfig) : null;
        try {
            this.workDir = Files.createTempDirectory("redis-lock-server-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Starts the process and waits until it answers PING. */
    void launch() {
        ProcessBuilder builder = new ProcessBuilder(commandLine()).redirectErrorStream(true)
                .redirectOutput(this.workDir.resolve("redis.log").toFile());
        builder.environment().putAll(this.environment);
        try {
            this.process = builder.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start " + this.binary, ex);
        }
        awaitReady();
    }

    private List<String> commandLine() {
        List<String> command = new ArrayList<>(this.wrapper);
        command.add(this.binary.toString());
        if (this.sentinelConfig != null) {
            // Sentinel rewrites its configuration file as it learns the topology: written once, kept on restart.
            Path config = this.workDir.resolve("sentinel.conf");
            if (!Files.exists(config)) {
                try {
                    Files.write(config, this.sentinelConfig);
                }
                catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            }
            command.add(config.toString());
            command.add("--sentinel");
        }
        command.addAll(List.of("--port", Integer.toString(this.port), "--bind", this.host, "--save", "",
                "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no", "--dir",
                this.workDir.toString(), "--loglevel", "warning", "--logfile", ""));
        command.addAll(this.extraArguments);
        return command;
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!this.process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + this.port + " exited at start-up: " + log());
            }
            try (RespConnection connection = RespConnection.open(this.host, this.port, Duration.ofSeconds(1))) {
                if ("PONG".equals(connection.command("PING"))) {
                    return;
                }
            }
            catch (UncheckedIOException | RespConnection.RedisErrorReply ex) {
                last = (ex.getCause() instanceof IOException io) ? io : new IOException(ex.getMessage());
            }
            // Polling a child process for readiness; there is no event to wait on.
            sleepMillis(10);
        }
        destroyQuietly();
        throw new IllegalStateException("redis-server on port " + this.port + " not ready after " + START_TIMEOUT
                + ": " + log(), last);
    }

    private String log() {
        try {
            return Files.readString(this.workDir.resolve("redis.log")).trim();
        }
        catch (IOException ex) {
            return "(no log)";
        }
    }

    boolean isRunning() {
        return this.process != null && this.process.isAlive();
    }

    long pid() {
        requireRunning();
        return this.process.pid();
    }

    /** Orderly stop: SIGTERM (after SIGCONT if paused), then wait for the process to exit. */
    void stop() {
        if (this.process == null) {
            return;
        }
        if (this.paused && isRunning()) {
            signal("CONT");
        }
        this.process.destroy();
        awaitExit();
    }

    /** Abrupt stop, as in a crash: SIGKILL. */
    void kill() {
        if (this.process == null) {
            return;
        }
        this.process.destroyForcibly();
        awaitExit();
    }

    /** Sends SIGSTOP or SIGCONT. */
    void signal(String signal) {
        requireRunning();
        ProcessSignals.send(this.process, signal);
        this.paused = "STOP".equals(signal);
    }

    private void awaitExit() {
        try {
            if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
                this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        this.paused = false;
    }

    private void requireRunning() {
        if (!isRunning()) {
            throw new IllegalStateException("redis-server on port " + this.port + " is not running");
        }
    }

    /** SIGKILL if still alive, waiting a little for the exit; never throws. */
    void destroyQuietly() {
        if (this.process != null && this.process.isAlive()) {
            this.process.destroyForcibly();
            try {
                this.process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    void deleteWorkDir() {
        try (Stream<Path> paths = Files.walk(this.workDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException ex) {
            // Leftover temp files are harmless.
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
        }
    }
}
