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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.zookeeper.Version;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;

/**
 * A real ZooKeeper server (the server code of the ZooKeeper jar the workers' client comes from) in a JVM of its own
 * that the suite started: a process like the suite's redis-servers, which a fault can signal by PID and whose wall
 * clock a {@link FakeClock} can step (it is given that clock's environment at start). Either standalone on a free
 * loopback port ({@link #start}), or one member of an ensemble ({@link #startEnsemble}), each in a network namespace
 * of a {@link ServerLab} at its own address, on ZooKeeper's usual ports (client 2181, quorum 2888, election 3888).
 * Its data and log are in a directory of its own under the run's log directory (kept when a scenario failed);
 * {@link #close()} deletes the data, {@link #kill()} and {@link #restart()} keep it, as a crashed server's disk does.
 * <p>
 * Ticks of {@value #TICK_MILLIS} ms, so that the session timeout the workers ask for (the run's lease) is granted as
 * it is: a server bounds session timeouts to {@code minSessionTimeout..maxSessionTimeout}, set here to 2 ticks
 * and a minute. An ensemble's followers have {@code initLimit} 10 ticks (2 s) to connect and sync with a leader and
 * {@code syncLimit} 5 ticks (1 s) to answer it. Writes are fsynced, as in production.
 */
final class ZooKeeperServerProcess implements AutoCloseable {

    static final int TICK_MILLIS = 200;

    /** An ensemble member's client port, in its own namespace. */
    static final int ENSEMBLE_CLIENT_PORT = 2181;

    // As long as a worker may take to start: a JVM under libfaketime on a loaded machine starts slowly.
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final ProcessBuilder command;

    private final String host;

    private final int port;

    private final Path directory;

    private final boolean standalone;

    private Process process;

    private ZooKeeperServerProcess(ProcessBuilder command, String host, int port, Path directory, boolean standalone) {
        this.command = command;
        this.host = host;
        this.port = port;
        this.directory = directory;
        this.standalone = standalone;
    }

    /**
     * Starts a standalone server on loopback and waits until it answers as one.
     * @param classPath a class path with the ZooKeeper server and logback on it (the suite's own)
     * @param logDirectory where the server's directory (configuration, data, log) is made
     * @param environment extra variables for the server's JVM, e.g. those of a {@link FakeClock}
     */
    static ZooKeeperServerProcess start(String classPath, Path logDirectory, Map<String, String> environment) {
        Path directory = temporaryDirectory(logDirectory);
        int port = freePort();
        ZooKeeperServerProcess server = prepare(classPath, directory, List.of(), environment, "127.0.0.1", port,
                List.of());
        return launched(List.of(server)).get(0);
    }

    /**
     * Starts an ensemble of one server per address, server {@code i} in the lab's namespace {@code i + 1}, and waits
     * until each answers as leader or follower.
     */
    static List<ZooKeeperServerProcess> startEnsemble(String classPath, Path logDirectory, ServerLab lab,
            int members) {
        List<String> addresses = new ArrayList<>();
        for (int i = 1; i <= members; i++) {
            addresses.add(lab.address(i));
        }
        List<ZooKeeperServerProcess> servers = new ArrayList<>();
        for (int i = 1; i <= members; i++) {
            servers.add(prepare(classPath, temporaryDirectory(logDirectory), lab.wrapper(i), Map.of(), lab.address(i),
                    ENSEMBLE_CLIENT_PORT, addresses));
            writeMyId(servers.get(i - 1).directory, i);
        }
        return launched(servers);
    }

    private static ZooKeeperServerProcess prepare(String classPath, Path directory, List<String> wrapper,
            Map<String, String> environment, String host, int port, List<String> ensemble) {
        StringBuilder config = new StringBuilder("""
                tickTime=%d
                minSessionTimeout=%d
                maxSessionTimeout=60000
                dataDir=%s
                clientPort=%d
                clientPortAddress=%s
                4lw.commands.whitelist=srvr
                """.formatted(TICK_MILLIS, 2 * TICK_MILLIS, directory.resolve("data"), port, host));
        if (!ensemble.isEmpty()) {
            config.append("initLimit=10\nsyncLimit=5\n");
            for (int i = 0; i < ensemble.size(); i++) {
                config.append("server.").append(i + 1).append('=').append(ensemble.get(i)).append(":2888:3888\n");
            }
        }
        try {
            Files.writeString(directory.resolve("zoo.cfg"), config);
            // Its own logback configuration: without one logback logs everything at DEBUG.
            Files.writeString(directory.resolve("logback.xml"), """
                    <configuration>
                      <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
                        <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{30} - %msg%n</pattern></encoder>
                      </appender>
                      <root level="INFO"><appender-ref ref="out"/></root>
                    </configuration>
                    """);
        }
        catch (IOException ex) {
            deleteRecursively(directory);
            throw new UncheckedIOException("Could not write a ZooKeeper server's configuration", ex);
        }
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false",
                "-Dlogback.configurationFile=" + directory.resolve("logback.xml"), "-cp", classPath,
                (ensemble.isEmpty() ? ZooKeeperServerMain.class : QuorumPeerMain.class).getName(),
                directory.resolve("zoo.cfg").toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("zookeeper.log").toFile()));
        builder.environment().putAll(environment);
        return new ZooKeeperServerProcess(builder, host, port, directory, ensemble.isEmpty());
    }

    /** Launches them all first (an ensemble member serves only once a quorum runs), then waits for each. */
    private static List<ZooKeeperServerProcess> launched(List<ZooKeeperServerProcess> servers) {
        try {
            for (ZooKeeperServerProcess server : servers) {
                server.launch();
            }
            for (ZooKeeperServerProcess server : servers) {
                server.awaitReady();
            }
            return servers;
        }
        catch (RuntimeException ex) {
            servers.forEach(ZooKeeperServerProcess::close);
            throw ex;
        }
    }

    private static void writeMyId(Path directory, int id) {
        try {
            Files.createDirectories(directory.resolve("data"));
            Files.writeString(directory.resolve("data").resolve("myid"), Integer.toString(id));
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void launch() {
        try {
            this.process = this.command.start();
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not start a ZooKeeper server", ex);
        }
    }

    /** Kills the server (SIGKILL), keeping its data, as a crash does. */
    void kill() {
        this.process.destroyForcibly();
        try {
            this.process.waitFor(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts it again on its data and waits until it serves (an ensemble member: as leader or follower). */
    void restart() {
        kill();
        launch();
        awaitReady();
    }

    /**
     * {@code leader}, {@code follower}, {@code standalone} or {@code not serving} (a member without a quorum), by
     * {@code srvr}; fails when it does not answer.
     */
    String mode() {
        String status = status();
        return status.lines().filter((line) -> line.startsWith("Mode: ")).map((line) -> line.substring(6))
            .findFirst().orElse(status.contains("not currently serving") ? "not serving" : "unknown");
    }

    String host() {
        return this.host;
    }

    int port() {
        return this.port;
    }

    /** {@code <host>:<port>}: {@code 127.0.0.1:<port>} for a standalone server. */
    String connectString() {
        return this.host + ":" + this.port;
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
            socket.connect(new InetSocketAddress(this.host, this.port), 1000);
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
                String status = status();
                if (this.standalone ? status.contains("Mode: standalone")
                        : status.contains("Mode: leader") || status.contains("Mode: follower")) {
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
        if (this.process != null) {
            kill();
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
