package io.github.redislock.benchmarks;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RespConnection;

/**
 * The one redis-server every benchmark in this JVM talks to. {@link BenchmarkMain} starts it and records its
 * port in a system property; JMH states and the Redis-load profiler, which JMH instantiates itself and so
 * cannot be handed a reference, find it here. The side channel used here (a plain RESP socket, not one of
 * the clients under test) keeps measuring from disturbing what is measured.
 */
public final class BenchRedis {

    /** System property holding the port of the benchmark Redis on 127.0.0.1. */
    public static final String PORT_PROPERTY = "redislock.bench.redis.port";

    private static final String HOST = "127.0.0.1";

    private BenchRedis() {
    }

    /** {@code redis://127.0.0.1:port}, for Spring Boot, Lettuce and Redisson alike. */
    public static String url() {
        return "redis://" + HOST + ":" + port();
    }

    /** Deletes every key, so that each run starts from the same empty Redis. */
    public static void flushAll() {
        command("FLUSHALL");
    }

    /** Cumulative commands and CPU time of the server right now. */
    public static RedisLoad load() {
        return RedisLoad.parse((String) command("INFO"));
    }

    /** The server's version, for the report header. */
    public static String version() {
        for (String line : ((String) command("INFO", "server")).split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "?";
    }

    /** Waits until the given number of replicas are online, in sync with the benchmark Redis. */
    public static void awaitReplicas(int replicas) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!((String) command("INFO", "replication")).contains("connected_slaves:" + replicas)
                || ((String) command("INFO", "replication")).split("state=online", -1).length - 1 < replicas) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(replicas + " replica(s) not in sync after 30 s");
            }
            // Replication sets itself up on its own timer: its state is all there is to wait on.
            LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
    }

    private static Object command(String... arguments) {
        try (RespConnection connection = RespConnection.open(HOST, port(), Duration.ofSeconds(10))) {
            return connection.command(arguments);
        }
    }

    private static int port() {
        String port = System.getProperty(PORT_PROPERTY);
        if (port == null) {
            throw new IllegalStateException("No benchmark Redis: run io.github.redislock.benchmarks.BenchmarkMain, "
                    + "which starts one and sets -D" + PORT_PROPERTY);
        }
        return Integer.parseInt(port);
    }
}
