package io.github.redislock.torture;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.zookeeper.Version;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/**
 * A real ZooKeeper server (standalone, the server code of the ZooKeeper jar the workers' client comes from) in a
 * JVM of its own that the suite started, listening on a free loopback port: a process like the suite's
 * redis-servers, which a fault can signal by PID and whose wall clock a {@link FakeClock} can step (it is given
 * that clock's environment at start). Its data and log are in a directory of its own under the run's log directory
 * (kept when a scenario failed); {@link #close()} deletes the data.
 * <p>
 * Ticks of {@value #TICK_MILLIS} ms, so that the session timeout the workers ask for (the run's lease) is granted as
 * it is: a server bounds session timeouts to {@code minSessionTimeout..maxSessionTimeout}, set here to 2 ticks
 * and a minute. Writes are fsynced, as in production.
 */
final class ZooKeeperServerProcess implements AutoCloseable {

    static final int TICK_MILLIS = 200;

    // As long as a worker may take to start: a JVM under libfaketime on a loaded machine starts slowly.
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final Process process;

    private final int port;

    private final Path directory;

    private ZooKeeperServerProcess(Process process, int port, Path directory) {
        this.process = process;
        this.port = port;
        this.directory = directory;
    }

    /**
     * Starts the server and waits until it answers as a standalone server.
     * @param classPath a class path with the ZooKeeper server and logback on it (the suite's own)
     * @param logDirectory where the server's directory (configuration, data, log) is made
     * @param environment extra variables for the server's JVM, e.g. those of a {@link FakeClock}
     */
    static ZooKeeperServerProcess start(String classPath, Path logDirectory, Map<String, String> environment) {
        Path directory = temporaryDirectory(logDirectory);
        int port = freePort();
        Process process;
        try {
            Files.writeString(directory.resolve("zoo.cfg"), """
                    tickTime=%d
                    minSessionTimeout=%d
                    maxSessionTimeout=60000
                    dataDir=%s
                    clientPort=%d
                    clientPortAddress=127.0.0.1
                    4lw.commands.whitelist=srvr
                    """.formatted(TICK_MILLIS, 2 * TICK_MILLIS, directory.resolve("data"), port));
            // Its own logback configuration: without one logback logs everything at DEBUG.
            Files.writeString(directory.resolve("logback.xml"), """
                    <configuration>
                      <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                        <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{30} - %msg%n</pattern></encoder>
                      </appender>
                      <root level="INFO"><appender-ref ref="out"/></root>
                    </configuration>
                    """);
            ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false",
                    "-Dlogback.configurationFile=" + directory.resolve("logback.xml"), "-cp", classPath,
                    ZooKeeperServerMain.class.getName(), directory.resolve("zoo.cfg").toString())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("zookeeper.log").toFile());
            builder.environment().putAll(environment);
            process = builder.start();
        }
        catch (IOException ex) {
            deleteRecursively(directory);
            throw new UncheckedIOException("Could not start a ZooKeeper server", ex);
        }
        ZooKeeperServerProcess server = new ZooKeeperServerProcess(process, port, directory);
        try {
            server.awaitReady();
            return server;
        }
        catch (RuntimeException ex) {
            server.close();
            throw ex;
        }
    }

    int port() {
        return this.port;
    }

    /** {@code 127.0.0.1:<port>}. */
    String connectString() {
        return "127.0.0.1:" + this.port;
    }

    long pid() {
        return this.process.pid();
    }

    /** The ZooKeeper version of the server and of the workers' client: one jar. */
    static String version() {
        return Version.getFullVersion().split("[ ,-]")[0];
    }

    /** What the server answers to {@code srvr}: version, latency, mode; fails when it does not answer. */
    String status() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("ZooKeeper on port " + this.port + " does not answer", ex);
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!this.process.isAlive()) {
                throw new IllegalStateException("The ZooKeeper server exited at start-up:\n" + logTail());
            }
            try {
                if (status().contains("Mode: standalone")) {
                    return;
                }
            }
            catch (UncheckedIOException ex) {
                // Not listening yet.
            }
            // Polling a child process for readiness; there is no event to wait on.
            ScenarioRun.runFor(Duration.ofMillis(50));
        }
        throw new IllegalStateException("The ZooKeeper server on port " + this.port + " was not ready after "
                + START_TIMEOUT + ":\n" + logTail());
    }

    /** The last lines of the server's log, for a report on a server that failed. */
    String logTail() {
        try {
            List<String> lines = Files.readAllLines(this.directory.resolve("zookeeper.log"));
            return String.join(System.lineSeparator(), lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
        catch (IOException ex) {
            return "(no log: " + ex.getMessage() + ")";
        }
    }

    /** Kills the server (SIGKILL) and deletes its data; its configuration and log stay for the report. */
    @Override
    public void close() {
        this.process.destroyForcibly();
        try {
            this.process.waitFor(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        deleteRecursively(this.directory.resolve("data"));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static Path temporaryDirectory(Path parent) {
        try {
            return Files.createTempDirectory(parent, "zookeeper-");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private static void deleteRecursively(Path directory) {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
        }
        catch (IOException | UncheckedIOException ex) {
            // A leftover temporary directory is harmless.
        }
    }
}
