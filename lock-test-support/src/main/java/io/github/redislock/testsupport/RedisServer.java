package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One real {@code redis-server} process on a free loopback port, with the controls fault-injection tests
 * need: {@link #stop()}, {@link #kill()}, {@link #pause()}/{@link #resume()} (SIGSTOP/SIGCONT) and
 * {@link #restart()} on the same port. Persistence is off, so a restart comes back empty, as after a crash
 * of a cache-only Redis.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     String url = redis.url(); // redis://127.0.0.1:<port>
 * }
 * }</pre>
 *
 * Only loopback addresses are ever used. Every server is also stopped by a JVM shutdown hook, so a
 * crashed test run leaves no process behind.
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final Path binary;

    private final List<String> extraArguments;

    private final Map<String, String> environment;

    private final Path workDir;

    /** Sentinel mode: the lines of its configuration file, written before the first launch; else null. */
    private final List<String> sentinelConfig;

    private final int port;

    private Process process;

    private boolean paused;

    private final Thread shutdownHook;

    private RedisServer(Path binary, int port, List<String> extraArguments, Map<String, String> environment,
            List<String> sentinelConfig) {
        this.binary = binary;
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
        this.shutdownHook = new Thread(this::destroyQuietly, "redis-server-" + port + "-shutdown");
        Runtime.getRuntime().addShutdownHook(this.shutdownHook);
    }

    /** Starts a server on a free loopback port with default settings. */
    public static RedisServer start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Always {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    public int port() {
        return this.port;
    }

    /** {@code redis://127.0.0.1:port}, ready for {@code spring.data.redis.url}. */
    public String url() {
        return "redis://" + HOST + ":" + this.port;
    }

    /** The operating-system process id of the running server. */
    public synchronized long pid() {
        requireRunning();
        return this.process.pid();
    }

    public synchronized boolean isRunning() {
        return this.process != null && this.process.isAlive();
    }

    /** Runs one command over a fresh connection and returns its reply (see {@link RespConnection}). */
    public Object command(String... arguments) {
        try (RespConnection connection = RespConnection.open(HOST, this.port, Duration.ofSeconds(5))) {
            return connection.command(arguments);
        }
    }

    /** Deletes every key. */
    public void flushAll() {
        command("FLUSHALL");
    }

    /** Orderly stop: SIGTERM, then wait for the process to exit. */
    public synchronized void stop() {
        if (this.process == null) {
            return;
        }
        resumeIfPaused();
        this.process.destroy();
        awaitExit();
    }

    /** Abrupt stop, as in a crash: SIGKILL. */
    public synchronized void kill() {
        if (this.process == null) {
            return;
        }
        this.process.destroyForcibly();
        awaitExit();
    }

    /** Freezes the server (SIGSTOP): connections stay open but nothing is answered until {@link #resume()}. */
    public synchronized void pause() {
        signal("STOP");
    }

    /** Thaws a {@link #pause() paused} server (SIGCONT). */
    public synchronized void resume() {
        signal("CONT");
    }

    /** Starts the server again on the same port, empty. Stops it first if it is still running. */
    public synchronized void restart() {
        if (isRunning()) {
            stop();
        }
        launch();
    }

    @Override
    public synchronized void close() {
        destroyQuietly();
        try {
            Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
        }
        catch (IllegalStateException ex) {
            // JVM already shutting down: the hook runs anyway.
        }
        deleteWorkDir();
    }

    @Override
    public String toString() {
        return "RedisServer[" + url() + "]";
    }

    private synchronized void launch() {
        List<String> command = new ArrayList<>();
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
        command.addAll(List.of("--port", Integer.toString(this.port), "--bind", HOST, "--save", "",
                "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no", "--dir",
                this.workDir.toString(), "--loglevel", "warning", "--logfile", ""));
        command.addAll(this.extraArguments);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
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

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline) {
            if (!this.process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + this.port + " exited at start-up: " + log());
            }
            try (RespConnection connection = RespConnection.open(HOST, this.port, Duration.ofSeconds(1))) {
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

    private void signal(String signal) {
        requireRunning();
        ProcessSignals.send(this.process, signal);
        this.paused = "STOP".equals(signal);
    }

    private void resumeIfPaused() {
        if (this.paused && isRunning()) {
            signal("CONT");
        }
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

    private synchronized void destroyQuietly() {
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

    private void deleteWorkDir() {
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

    /** A loopback port that was free a moment ago. */
    static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * A free loopback port for a cluster node: at most 55535, since the node also listens on the port 10000
     * higher for the cluster bus, which must be free too.
     */
    static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 20000 + ThreadLocalRandom.current().nextInt(55535 - 20000 + 1);
            if (isBindable(port) && isBindable(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("No free loopback port pair (p, p + 10000) for a cluster node");
    }

    private static boolean isBindable(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /** True when something accepts connections on the given loopback port. */
    public static boolean isListening(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    /** Options for {@link RedisServer}. */
    public static final class Builder {

        private Integer port;

        private final List<String> arguments = new ArrayList<>();

        private final Map<String, String> environment = new LinkedHashMap<>();

        private List<String> sentinelConfig;

        private Builder() {
        }

        /**
         * A Sentinel ({@code redis-server <file> --sentinel}) instead of a data server, with these lines in its
         * configuration file (e.g. {@code "sentinel monitor mymaster 127.0.0.1 6379 2"}).
         */
        public Builder sentinel(List<String> configLines) {
            this.sentinelConfig = List.copyOf(configLines);
            return this;
        }

        /** A fixed loopback port instead of a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Extra {@code redis-server} command-line arguments, e.g. {@code "--maxmemory", "10mb"}. */
        public Builder arguments(String... arguments) {
            this.arguments.addAll(List.of(arguments));
            return this;
        }

        /**
         * Extra environment variables for the {@code redis-server} process, on every launch (restarts included),
         * e.g. {@code LD_PRELOAD} of a library that fakes its clock.
         */
        public Builder environment(Map<String, String> variables) {
            this.environment.putAll(variables);
            return this;
        }

        public RedisServer start() {
            Path binary = RedisBinary.find();
            IllegalStateException failure = null;
            // A free port can be taken by someone else between probing and binding; try a few.
            for (int attempt = 0; attempt < 5; attempt++) {
                int chosen = (this.port != null) ? this.port
                        : this.arguments.contains("--cluster-enabled") ? freeClusterPort() : freePort();
                RedisServer server = new RedisServer(binary, chosen, this.arguments, this.environment,
                        this.sentinelConfig);
                try {
                    server.launch();
                    return server;
                }
                catch (IllegalStateException ex) {
                    server.close();
                    failure = ex;
                    if (this.port != null) {
                        break;
                    }
                }
            }
            throw failure;
        }
    }
}
