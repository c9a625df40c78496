package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import static io.github.redislock.torture.HostCommands.executable;
import static io.github.redislock.torture.HostCommands.isDead;
import static io.github.redislock.torture.HostCommands.nft;
import static io.github.redislock.torture.HostCommands.removeStaleNamespacesAndLinks;
import static io.github.redislock.torture.HostCommands.run;
import static io.github.redislock.torture.HostCommands.runQuietly;

/**
 * The network of one scenario's workers: each worker JVM in a network namespace of its own, joined to the host by
 * a veth pair, so that its link to Redis can be cut or slowed without touching anything outside this run. Only
 * addresses of these namespaces are used, and Redis and the witness still listen on loopback only.
 * <p>
 * For worker {@code i} (from 1) of the run whose coordinator has PID {@code P}:
 * <ul>
 * <li>namespace {@code rlt<P>w<i>}, with the veth end {@code rlt<P>w<i>n} at {@code 10.B.C.(4i+2)/30}; the host
 * end {@code rlt<P>w<i>h} at {@code 10.B.C.(4i+1)}, where {@code B.C} comes from {@code P} so that two runs on one
 * machine do not meet;</li>
 * <li>an nft table {@code ip rlt<P>} on the host that sends what arrives on a host end for its own address to
 * 127.0.0.1 ({@code route_localnet} is set on that host end only): the worker reaches Redis and the witness at
 * {@link #hostAddress(int)} on their usual ports.</li>
 * </ul>
 * Faults, nft tables inside the worker's namespace: {@link #cut(int, int...)} drops every packet to and from Redis's
 * port, so the TCP connections stay open and silent as in a real partition (the witness, on another port, stays
 * reachable); {@link #lose(int, int, int)} drops a share of them at random; {@link #heal(int)} lifts either.
 * (Delay comes from a {@link DelayingRelay}: the kernels this suite runs on need not have {@code tc netem}.)
 * <p>
 * Everything is removed by {@link #close()}, by a JVM shutdown hook if the run is stopped, and at the next run's
 * start if this one was killed: names carry the coordinator's PID, and those of dead PIDs are stale.
 */
final class NetworkLab implements AutoCloseable {

    private static final String PREFIX = "rlt";

    private static final Pattern STALE = Pattern.compile("^" + PREFIX + "(\\d+)(w\\d+[hn]?|probe)\\b");

    private static final Pattern STALE_TABLE = Pattern.compile("^table ip " + PREFIX + "(\\d+)$");

    private static volatile @Nullable Optional<String> unavailable;

    private final long pid;

    private final int workers;

    private final Thread shutdownHook;

    private NetworkLab(long pid, int workers) {
        this.pid = pid;
        this.workers = workers;
        this.shutdownHook = new Thread(this::remove, "torture-network-cleanup");
        Runtime.getRuntime().addShutdownHook(this.shutdownHook);
    }

    /**
     * Why this machine cannot host the namespaces (not Linux, not root, no {@code ip} or {@code nft}), in one
     * sentence; empty when it can. Found once per JVM, by setting up and removing a namespace with an nft table.
     */
    static Optional<String> unavailable() {
        Optional<String> reason = unavailable;
        if (reason == null) {
            reason = probe();
            unavailable = reason;
        }
        return reason;
    }

    private static Optional<String> probe() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return Optional.of("network namespaces need Linux");
        }
        for (String tool : List.of("ip", "nft")) {
            if (executable(tool) == null) {
                return Optional.of("no '" + tool + "' on PATH, /usr/sbin or /sbin (Debian: apt-get install iproute2 "
                        + "nftables)");
            }
        }
        String probe = PREFIX + ProcessHandle.current().pid() + "probe";
        try {
            run("ip", "netns", "add", probe);
            run("ip", "-n", probe, "link", "set", "lo", "up");
            nft(probe, """
                    table inet probe {
                        chain out {
                            type filter hook output priority 0; policy accept;
                            tcp dport 9 numgen random mod 100 < 2 drop
                        }
                    }
                    """);
            return Optional.empty();
        }
        catch (IllegalStateException ex) {
            return Optional.of("cannot set up a network namespace with nft here (root needed): "
                    + ex.getMessage().lines().findFirst().orElse(""));
        }
        finally {
            runQuietly("ip", "netns", "del", probe);
        }
    }

    /** Removes what killed runs left, then sets up a namespace per worker. */
    static NetworkLab open(int workers) {
        if (workers > 63) {
            throw new IllegalArgumentException("At most 63 workers fit the namespaces' address block");
        }
        removeStale();
        NetworkLab lab = new NetworkLab(ProcessHandle.current().pid(), workers);
        try {
            lab.create();
            return lab;
        }
        catch (RuntimeException ex) {
            lab.close();
            throw ex;
        }
    }

    /** The prefix that starts a process inside worker {@code i}'s namespace. */
    List<String> wrapper(int worker) {
        return List.of(executable("ip"), "netns", "exec", namespace(worker));
    }

    /** Where worker {@code i} reaches the host's loopback services: the host end of its veth pair. */
    String hostAddress(int worker) {
        return address(worker, 1);
    }

    /**
     * Drops every packet between worker {@code i} and these ports (Redis's, or some Redlock nodes'), both ways, until
     * {@link #heal(int)}.
     */
    void cut(int worker, int... ports) {
        String host = hostAddress(worker);
        String set = java.util.Arrays.stream(ports).mapToObj(Integer::toString)
            .collect(java.util.stream.Collectors.joining(", ", "{ ", " }"));
        nft(namespace(worker), """
                table inet fault {
                    chain out {
                        type filter hook output priority 0; policy accept;
                        ip daddr %1$s tcp dport %2$s drop
                    }
                    chain in {
                        type filter hook input priority 0; policy accept;
                        ip saddr %1$s tcp sport %2$s drop
                    }
                }
                """.formatted(host, set));
    }

    void heal(int worker) {
        run("ip", "netns", "exec", namespace(worker), "nft", "delete", "table", "inet", "fault");
    }

    /**
     * Drops this share of the packets between worker {@code i} and the port, each way, at random, until
     * {@link #heal(int)}: real loss, which TCP recovers by retransmitting.
     */
    void lose(int worker, int port, int percent) {
        String host = hostAddress(worker);
        nft(namespace(worker), """
                table inet fault {
                    chain out {
                        type filter hook output priority 0; policy accept;
                        ip daddr %1$s tcp dport %2$d numgen random mod 100 < %3$d drop
                    }
                    chain in {
                        type filter hook input priority 0; policy accept;
                        ip saddr %1$s tcp sport %2$d numgen random mod 100 < %3$d drop
                    }
                }
                """.formatted(host, port, percent));
    }

    @Override
    public void close() {
        remove();
        try {
            Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
        }
        catch (IllegalStateException ex) {
            // The JVM is shutting down: the hook runs anyway.
        }
    }

    private void create() {
        nft(null, """
                table ip %s {
                    chain prerouting {
                        type nat hook prerouting priority dstnat; policy accept;
                    }
                }
                """.formatted(table()));
        for (int i = 1; i <= this.workers; i++) {
            String namespace = namespace(i);
            String host = vethEnd(i, 'h');
            String inside = vethEnd(i, 'n');
            run("ip", "netns", "add", namespace);
            run("ip", "link", "add", host, "type", "veth", "peer", "name", inside, "netns", namespace);
            run("ip", "addr", "add", hostAddress(i) + "/30", "dev", host);
            run("ip", "link", "set", host, "up");
            // Lets the host route what it sends to 127.0.0.1 out of, and back in through, this interface alone.
            write(Path.of("/proc/sys/net/ipv4/conf", host, "route_localnet"), "1");
            run("ip", "-n", namespace, "addr", "add", address(i, 2) + "/30", "dev", inside);
            run("ip", "-n", namespace, "link", "set", inside, "up");
            run("ip", "-n", namespace, "link", "set", "lo", "up");
            run("nft", "add", "rule", "ip", table(), "prerouting", "iifname", host, "ip", "daddr", hostAddress(i),
                    "dnat", "to", "127.0.0.1");
        }
    }

    private void remove() {
        for (int i = 1; i <= this.workers; i++) {
            runQuietly("ip", "netns", "del", namespace(i));
            runQuietly("ip", "link", "del", vethEnd(i, 'h'));
        }
        runQuietly("nft", "delete", "table", "ip", table());
    }

    /** Namespaces, host ends and nft tables of runs whose coordinator is gone. */
    private static void removeStale() {
        removeStaleNamespacesAndLinks(STALE);
        for (String line : run("nft", "list", "tables").lines().toList()) {
            Matcher matcher = STALE_TABLE.matcher(line.trim());
            if (matcher.find() && isDead(matcher.group(1))) {
                runQuietly("nft", "delete", "table", "ip", PREFIX + matcher.group(1));
            }
        }
    }

    private String namespace(int worker) {
        return PREFIX + this.pid + "w" + worker;
    }

    /** {@code h} on the host, {@code n} in the namespace; at most 15 characters, as Linux wants. */
    private String vethEnd(int worker, char side) {
        return namespace(worker) + side;
    }

    private String table() {
        return PREFIX + this.pid;
    }

    /** {@code 10.(200 + a).b.(4 * worker + host)}, with {@code a.b} the PID's low 13 bits. */
    private String address(int worker, int host) {
        long block = this.pid & 0x1FFF;
        return "10." + (200 + (block >> 8)) + "." + (block & 0xFF) + "." + (4 * worker + host);
    }

    private static void write(Path file, String value) {
        try {
            Files.writeString(file, value);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
