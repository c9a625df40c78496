package io.github.redislock.torture;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static io.github.redislock.torture.HostCommands.executable;
import static io.github.redislock.torture.HostCommands.nft;
import static io.github.redislock.torture.HostCommands.removeStaleNamespacesAndLinks;
import static io.github.redislock.torture.HostCommands.run;
import static io.github.redislock.torture.HostCommands.runQuietly;

/**
 * A network for the servers of one scenario, so that links between them can be cut: each server process (a Redis,
 * a Sentinel, a ZooKeeper server of an ensemble) in a network namespace of its own, all joined by one bridge on the
 * host, which has an address on it too. The workers and the witness stay on the host: workers reach every server
 * at its address across the bridge, servers reach each other the same way, and a cut between servers leaves the
 * workers' links alone. (The workers' own links are {@link NetworkLab}'s.)
 * <p>
 * For server {@code i} (from 1) of the run whose coordinator has PID {@code P}: namespace {@code rlt<P>s<i>} with the
 * veth end {@code rlt<P>s<i>n} at {@code 10.A.B.(10+i)/24}, its host end {@code rlt<P>s<i>h} on the bridge
 * {@code rlt<P>b}, which has {@code 10.A.B.1/24}; {@code A.B} comes from {@code P} (10.232-239), apart from the
 * workers' namespaces' (10.200-231). The bridge does not pass its frames to the host's IP firewall
 * ({@code nf_call_iptables 0}), which on a host with Docker would drop them.
 * <p>
 * {@link #isolate(int, Set)} loads an nft table in server {@code i}'s namespace that drops every packet between it and
 * the servers named (both ways), so their connections stay open and silent as in a real partition;
 * {@link #heal(int)} lifts it. Everything is removed by {@link #close()}, by a shutdown hook if the run is stopped,
 * and at the next run's start if this one was killed.
 */
final class ServerLab implements AutoCloseable {

    private static final Pattern STALE = Pattern.compile("^rlt(\\d+)(s\\d+[hn]?|b)\\b");

    private final long pid;

    private final int servers;

    private final Thread shutdownHook;

    private ServerLab(long pid, int servers) {
        this.pid = pid;
        this.servers = servers;
        this.shutdownHook = new Thread(this::remove, "torture-server-network-cleanup");
        Runtime.getRuntime().addShutdownHook(this.shutdownHook);
    }

    /** Removes what killed runs left, then sets up the bridge and a namespace per server. */
    static ServerLab open(int servers) {
        if (servers > 200) {
            throw new IllegalArgumentException("At most 200 servers fit the bridge's address block");
        }
        removeStale();
        ServerLab lab = new ServerLab(ProcessHandle.current().pid(), servers);
        try {
            lab.create();
            return lab;
        }
        catch (RuntimeException ex) {
            lab.close();
            throw ex;
        }
    }

    /** The prefix that starts a process inside server {@code i}'s namespace (it execs, keeping the PID). */
    List<String> wrapper(int server) {
        return List.of(executable("ip"), "netns", "exec", namespace(server));
    }

    /** Server {@code i}'s address, which it binds and everyone reaches it at. */
    String address(int server) {
        return prefix() + (10 + server);
    }

    /** Drops every packet between server {@code i} and these servers, both ways, until {@link #heal(int)}. */
    void isolate(int server, Set<Integer> from) {
        String peers = from.stream().map(this::address).collect(Collectors.joining(", ", "{ ", " }"));
        nft(namespace(server), """
                table inet fault {
                    chain out {
                        type filter hook output priority 0; policy accept;
                        ip daddr %1$s drop
                    }
                    chain in {
                        type filter hook input priority 0; policy accept;
                        ip saddr %1$s drop
                    }
                }
                """.formatted(peers));
    }

    void heal(int server) {
        run("ip", "netns", "exec", namespace(server), "nft", "delete", "table", "inet", "fault");
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
        String bridge = bridge();
        run("ip", "link", "add", "name", bridge, "type", "bridge", "nf_call_iptables", "0");
        run("ip", "addr", "add", prefix() + "1/24", "dev", bridge);
        run("ip", "link", "set", bridge, "up");
        for (int i = 1; i <= this.servers; i++) {
            String namespace = namespace(i);
            String host = namespace + "h";
            String inside = namespace + "n";
            run("ip", "netns", "add", namespace);
            run("ip", "link", "add", host, "type", "veth", "peer", "name", inside, "netns", namespace);
            run("ip", "link", "set", host, "master", bridge);
            run("ip", "link", "set", host, "up");
            run("ip", "-n", namespace, "addr", "add", address(i) + "/24", "dev", inside);
            run("ip", "-n", namespace, "link", "set", inside, "up");
            run("ip", "-n", namespace, "link", "set", "lo", "up");
        }
    }

    private void remove() {
        for (int i = 1; i <= this.servers; i++) {
            runQuietly("ip", "netns", "del", namespace(i));
            runQuietly("ip", "link", "del", namespace(i) + "h");
        }
        runQuietly("ip", "link", "del", bridge());
    }

    /** Namespaces, veth ends and bridges of runs whose coordinator is gone. */
    private static void removeStale() {
        removeStaleNamespacesAndLinks(STALE);
    }

    private String namespace(int server) {
        return "rlt" + this.pid + "s" + server;
    }

    private String bridge() {
        return "rlt" + this.pid + "b";
    }

    /** {@code 10.(232 + a).b.}, with {@code a.b} the PID's low 11 bits. */
    private String prefix() {
        long block = this.pid & 0x7FF;
        return "10." + (232 + (block >> 8)) + "." + (block & 0xFF) + ".";
    }
}
