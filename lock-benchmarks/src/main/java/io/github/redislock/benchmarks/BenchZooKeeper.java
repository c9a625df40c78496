package io.github.redislock.benchmarks;

import java.io.File;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Version;

/**
 * The one ZooKeeper server the ZooKeeper rows talk to: the real server code (curator-test's {@code TestingServer})
 * in this JVM, on a free loopback port, with its data (and fsync on every write, ZooKeeper's default) in a
 * temporary directory. {@link BenchmarkMain} starts it and records its address in a system property, where JMH
 * states find it, as they find the benchmark Redis ({@link BenchRedis}). Every ZooKeeper implementation measured
 * uses it in the same run, so their ratios are what counts; the server shares the JVM and the cores with the
 * clients, as the benchmark Redis shares the cores.
 */
public final class BenchZooKeeper {

    /** System property holding the benchmark ZooKeeper's connect string. */
    public static final String CONNECT_PROPERTY = "redislock.bench.zookeeper.connect";

    private BenchZooKeeper() {
    }

    /** Starts the server, records its address, and returns what stops it. */
    public static AutoCloseable start() throws Exception {
        File data = Files.createTempDirectory("bench-zookeeper").toFile();
        // Loopback only (clientPortAddress); the data directory is deleted when the server closes.
        InstanceSpec spec = new InstanceSpec(data, InstanceSpec.getRandomPort(), -1, -1, true, 1, -1, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        TestingServer server = new TestingServer(spec, true);
        System.setProperty(CONNECT_PROPERTY, "127.0.0.1:" + spec.getPort());
        return server::close;
    }

    /** {@code 127.0.0.1:port}. */
    public static String connectString() {
        String connect = System.getProperty(CONNECT_PROPERTY);
        if (connect == null) {
            throw new IllegalStateException("No benchmark ZooKeeper: run io.github.redislock.benchmarks."
                    + "BenchmarkMain, which starts one and sets -D" + CONNECT_PROPERTY);
        }
        return connect;
    }

    /** A started Curator client with its own session (one client instance, as one service would have), connected. */
    public static CuratorFramework client(String connectString) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs(30_000)
            .connectionTimeoutMs(10_000)
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .build();
        client.start();
        try {
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                client.close();
                throw new IllegalStateException("No connection to the benchmark ZooKeeper " + connectString);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            client.close();
            throw new IllegalStateException(ex);
        }
        return client;
    }

    /** The server's version, for the report header. */
    public static String version() {
        return Version.getVersion();
    }
}
