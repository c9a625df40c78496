package io.github.redislock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;

/**
 * A real ZooKeeper server (curator-test runs the server code in this JVM) on a free loopback port, with a short
 * tick so that sessions may be short; and the clients the tests need.
 */
public final class ZooKeeperServer implements AutoCloseable {

    /** The server's tick: sessions may last from 2 to 20 ticks (1 to 10 s). */
    public static final int TICK_MILLIS = 500;

    private final TestingServer server;

    private final InstanceSpec spec;

    public ZooKeeperServer() {
        try {
            File data = java.nio.file.Files.createTempDirectory("zk-locks").toFile();
            // clientPortAddress: listen on loopback only. forceSync=no: a write is answered once it is in the
            // transaction log's file, without waiting for the disk; on a build machine whose disk other builds
            // keep busy an fsync took over a second, which held up every write (a session's node, a lock's delete)
            // that tests time. What is written still survives a restart of the server; only a power loss would lose
            // it, which no test simulates (the torture suite's server processes keep ZooKeeper's default).
            this.spec = new InstanceSpec(data, InstanceSpec.getRandomPort(), -1, -1, true, 1, TICK_MILLIS, 100,
                    Map.of("clientPortAddress", "127.0.0.1", "forceSync", "no"), "127.0.0.1");
            this.server = new TestingServer(this.spec, true);
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not start a ZooKeeper server", ex);
        }
    }

    public String connectString() {
        return "127.0.0.1:" + this.spec.getPort();
    }

    /** A started client with the given session timeout, connected. */
    public CuratorFramework client(int sessionTimeoutMillis) {
        CuratorFramework client = CuratorFrameworkFactory.builder()
            .connectString(connectString())
            .sessionTimeoutMs(sessionTimeoutMillis)
            .connectionTimeoutMs(2000)
            .retryPolicy(new RetryOneTime(100))
            .build();
        client.start();
        try {
            if (!client.blockUntilConnected(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("No connection to " + connectString());
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        return client;
    }

    /**
     * Ends the client's session on the server, as an expiry does: another connection joins the same session and
     * closes it, so the server deletes the session's ephemeral nodes and the client is told its session expired.
     */
    public void expireSession(CuratorFramework client) throws Exception {
        ZooKeeper zk = client.getZookeeperClient().getZooKeeper();
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(connectString(), 10_000, (event) -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, zk.getSessionId(), zk.getSessionPasswd());
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("The twin connection did not connect");
            }
        }
        finally {
            twin.close();
        }
    }

    /** Stops the server, keeping its data (sessions included) for {@link #restart()}. */
    public void stop() {
        try {
            this.server.stop();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** Starts the stopped server again, on the same port with the same data. */
    public void restart() throws Exception {
        this.server.restart();
    }

    @Override
    public void close() {
        try {
            this.server.close();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
