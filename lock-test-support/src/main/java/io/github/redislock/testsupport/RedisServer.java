package io.github.redislock.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * Only loopback addresses are used, unless a caller gives the address of a network namespace of its own
 * ({@link Builder#host}, {@link Builder#wrapper}). Every server is also stopped by a JVM shutdown hook, so a
 * crashed test run leaves no process behind. The process itself is {@link RedisProcess}'s, the executable
 * {@link RedisBinary}'s, the ports {@link LoopbackPorts}'.
 */
public final class RedisServer implements AutoCloseable {

    private final String host;

    private final int port;

    private final RedisProcess process;

    private final Thread shutdownHook;

    private RedisServer(Path binary, String host, List<String> wrapper, int port, List<String> extraArguments,
            Map<String, String> environment, List<String> sentinelConfig) {
        this.host = host;
        this.port = port;
        this.process = new RedisProcess(binary, host, wrapper, port, extraArguments, environment, sentinelConfig);
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

    /** {@code 127.0.0.1}, unless the builder gave another address ({@link Builder#host}). */
    public String host() {
        return this.host;
    }

    public int port() {
        return this.port;
    }

    /** {@code redis://127.0.0.1:port}, ready for {@code spring.data.redis.url}. */
    public String url() {
        return "redis://" + this.host + ":" + this.port;
    }

    /** The operating-system process id of the running server. */
    public synchronized long pid() {
        return this.process.pid();
    }

    public synchronized boolean isRunning() {
        return this.process.isRunning();
    }

    /** Runs one command over a fresh connection and returns its reply (see {@link RespConnection}). */
    public Object command(String... arguments) {
        try (RespConnection connection = RespConnection.open(this.host, this.port, Duration.ofSeconds(5))) {
            return connection.command(arguments);
        }
    }

    /** Deletes every key. */
    public void flushAll() {
        command("FLUSHALL");
    }

    /** Orderly stop: SIGTERM, then wait for the process to exit. */
    public synchronized void stop() {
        this.process.stop();
    }

    /** Abrupt stop, as in a crash: SIGKILL. */
    public synchronized void kill() {
        this.process.kill();
    }

    /** Freezes the server (SIGSTOP): connections stay open but nothing is answered until {@link #resume()}. */
    public synchronized void pause() {
        this.process.signal("STOP");
    }

    /** Thaws a {@link #pause() paused} server (SIGCONT). */
    public synchronized void resume() {
        this.process.signal("CONT");
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
        this.process.deleteWorkDir();
    }

    @Override
    public String toString() {
        return "RedisServer[" + url() + "]";
    }

    private synchronized void launch() {
        this.process.launch();
    }

    private synchronized void destroyQuietly() {
        this.process.destroyQuietly();
    }

    /** True when something accepts connections on the given loopback port. */
    public static boolean isListening(int port) {
        return LoopbackPorts.isListening(port);
    }

    /** Options for {@link RedisServer}. */
    public static final class Builder {

        private Integer port;

        private Path binary;

        private String host = LoopbackPorts.HOST;

        private List<String> wrapper = List.of();

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

        /** This executable instead of the one {@link RedisBinary#find()} gives. */
        public Builder binary(Path executable) {
            this.binary = executable;
            return this;
        }

        /**
         * Binds and reaches the server at this address instead of loopback: one of a network namespace the
         * {@link #wrapper} starts it in, say. With it, give a {@link #port}: free ports are probed on loopback.
         */
        public Builder host(String address) {
            this.host = address;
            return this;
        }

        /**
         * A command prefix the process starts under, e.g. {@code ip netns exec <name>}; it must exec the server, so
         * that signals by process id reach it.
         */
        public Builder wrapper(List<String> prefix) {
            this.wrapper = List.copyOf(prefix);
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
            Path binary = (this.binary != null) ? this.binary : RedisBinary.find();
            IllegalStateException failure = null;
            // A free port can be taken by someone else between probing and binding; try a few.
            for (int attempt = 0; attempt < 5; attempt++) {
                int chosen = (this.port != null) ? this.port
                        : this.arguments.contains("--cluster-enabled") ? LoopbackPorts.freeClusterPort()
                                : LoopbackPorts.freePort();
                RedisServer server = new RedisServer(binary, this.host, this.wrapper, chosen, this.arguments,
                        this.environment, this.sentinelConfig);
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
