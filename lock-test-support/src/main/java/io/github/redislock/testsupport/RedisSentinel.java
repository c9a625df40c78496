package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A Sentinel-managed Redis of real processes on loopback ports: one master, {@code replicas} replicas and three
 * Sentinels ({@code redis-server <file> --sentinel}, quorum 2) monitoring it under {@link #MASTER_NAME}. Ready
 * once every replica is in sync and every Sentinel knows the replicas and the other Sentinels.
 * <p>
 * Fault controls for failover tests: {@link #failover()} ({@code SENTINEL FAILOVER}, then waits until every
 * Sentinel names the new master and every running server replicates from it; a former master still up is
 * demoted at once, as Sentinel would after a grace period of 8 s), {@link #detach} (the replica
 * stops receiving the master's writes but stays a failover candidate), {@link #heal()} (restarts stopped
 * servers and re-attaches every server to the current master, so a class can share one topology across its
 * tests). Sentinels wait {@link #DOWN_AFTER_MILLIS} before calling a master down and never reconfigure a
 * replica pointing elsewhere within {@link #FAILOVER_TIMEOUT_MILLIS}.
 */
public final class RedisSentinel implements AutoCloseable {

    /** The master's name: {@code spring.data.redis.sentinel.master}. */
    public static final String MASTER_NAME = "mymaster";

    /** How long a master must be unreachable before the Sentinels consider it down. */
    public static final long DOWN_AFTER_MILLIS = 1000;

    /** Also how long Sentinel leaves a replica that replicates from a wrong address alone. */
    public static final long FAILOVER_TIMEOUT_MILLIS = 60_000;

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final List<RedisServer> servers;

    private final List<RedisServer> sentinels;

    private RedisSentinel(List<RedisServer> servers, List<RedisServer> sentinels) {
        this.servers = List.copyOf(servers);
        this.sentinels = List.copyOf(sentinels);
    }

    /** Starts a master with the given number of replicas (at least 1) and three Sentinels. */
    public static RedisSentinel start(int replicas) {
        List<RedisServer> servers = new ArrayList<>();
        List<RedisServer> sentinels = new ArrayList<>();
        try {
            RedisServer master = RedisServer.start();
            servers.add(master);
            for (int i = 0; i < replicas; i++) {
                servers.add(RedisServer.builder()
                    .arguments("--replicaof", master.host(), Integer.toString(master.port()))
                    .start());
            }
            for (int i = 0; i < 3; i++) {
                sentinels.add(RedisServer.builder()
                    .sentinel(List.of("sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
                            "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                            "sentinel failover-timeout " + MASTER_NAME + " " + FAILOVER_TIMEOUT_MILLIS,
                            "sentinel parallel-syncs " + MASTER_NAME + " " + replicas))
                    .start());
            }
            RedisSentinel topology = new RedisSentinel(servers, sentinels);
            topology.awaitSettled(master);
            return topology;
        }
        catch (RuntimeException ex) {
            sentinels.forEach(RedisServer::close);
            servers.forEach(RedisServer::close);
            throw ex;
        }
    }

    /** {@code 127.0.0.1:port} of every Sentinel: {@code spring.data.redis.sentinel.nodes}. */
    public List<String> sentinelAddresses() {
        return this.sentinels.stream().map((sentinel) -> sentinel.host() + ":" + sentinel.port()).toList();
    }

    /** The Sentinel processes. */
    public List<RedisServer> sentinels() {
        return this.sentinels;
    }

    /** Every data server, master and replicas, running or not. */
    public List<RedisServer> servers() {
        return this.servers;
    }

    /** The server the first Sentinel names as master now. */
    public RedisServer master() {
        return serverOnPort(masterPortSeenBy(this.sentinels.get(0)));
    }

    /** The running data servers other than the {@link #master()}. */
    public List<RedisServer> replicas() {
        RedisServer master = master();
        return this.servers.stream().filter((server) -> server != master && server.isRunning()).toList();
    }

    /**
     * {@code SENTINEL FAILOVER}: a replica is promoted (also when the master is dead), then waits until every
     * Sentinel names it and every running server replicates from it.
     * @return the new master
     */
    public RedisServer failover() {
        int old = masterPortSeenBy(this.sentinels.get(0));
        this.sentinels.get(0).command("SENTINEL", "FAILOVER", MASTER_NAME);
        await("a new master named by every Sentinel", () -> this.sentinels.stream()
            .allMatch((sentinel) -> masterPortSeenBy(sentinel) != old));
        RedisServer master = master();
        RedisServer former = serverOnPort(old);
        if (former.isRunning()) {
            demote(former, master);
        }
        awaitSettled(master);
        return master;
    }

    /**
     * What Sentinel does to a former master that is still up, without its 8 s grace period: replicate from the
     * new master and disconnect the clients, so that they ask the Sentinels where the master is now.
     */
    private static void demote(RedisServer former, RedisServer master) {
        former.command("REPLICAOF", master.host(), Integer.toString(master.port()));
        former.command("CLIENT", "KILL", "TYPE", "normal");
        former.command("CLIENT", "KILL", "TYPE", "pubsub");
    }

    /**
     * Cuts the replica off the master's writes by making it replicate from a port nobody listens on: it keeps
     * its data, answers Sentinels, stays a failover candidate, and receives nothing the master writes from now
     * on (a replication link that lags for good). Sentinel leaves it so for {@link #FAILOVER_TIMEOUT_MILLIS}.
     */
    public void detach(RedisServer replica) {
        replica.command("REPLICAOF", replica.host(), Integer.toString(LoopbackPorts.freePort()));
        await("replica " + replica + " detached", () -> !info(this.master(), "replication")
            .contains("port=" + replica.port() + ","));
    }

    /** Waits until every running replica has received everything the master has written so far. */
    public void awaitReplicated() {
        RedisServer master = master();
        long offset = Long.parseLong(field(info(master, "replication"), "master_repl_offset"));
        for (RedisServer replica : replicas()) {
            await(replica + " at offset " + offset, () -> {
                String offsetField = field(info(replica, "replication"), "slave_repl_offset");
                return offsetField != null && Long.parseLong(offsetField) >= offset;
            });
        }
    }

    /**
     * After faults: restarts stopped servers (empty) and makes every server but the current master replicate
     * from it again; returns once all are in sync and every Sentinel sees them.
     */
    public void heal() {
        RedisServer master = master();
        if (!master.isRunning()) {
            master.restart();
        }
        for (RedisServer server : this.servers) {
            if (server == master) {
                continue;
            }
            if (!server.isRunning()) {
                server.restart();
            }
            String replication = info(server, "replication");
            if (!("" + master.port()).equals(field(replication, "master_port"))) {
                server.command("REPLICAOF", master.host(), Integer.toString(master.port()));
            }
        }
        awaitSettled(master);
    }

    /**
     * Every running server replicates from the master, in sync, and every Sentinel names the master and
     * sees the running replicas and the other Sentinels up.
     */
    private void awaitSettled(RedisServer master) {
        List<RedisServer> running = this.servers.stream()
            .filter((server) -> server != master && server.isRunning())
            .toList();
        await("every running replica in sync with " + master, () -> {
            String info = info(master, "replication");
            return info.contains("role:master") && ("" + running.size()).equals(field(info, "connected_slaves"))
                    && running.stream().allMatch((server) -> {
                        String replication = info(server, "replication");
                        return replication.contains("master_link_status:up")
                                && ("" + master.port()).equals(field(replication, "master_port"));
                    });
        });
        await("every Sentinel done with failovers and seeing the master, " + running.size()
                + " replicas fit for promotion and the other Sentinels",
                () -> this.sentinels.stream().allMatch((sentinel) -> masterPortSeenBy(sentinel) == master.port()
                        && "master".equals(fieldOf((List<?>) sentinel.command("SENTINEL", "MASTER", MASTER_NAME),
                                "flags"))
                        && promotableReplicas(sentinel, master.port()) >= running.size()
                        && upSentinels(sentinel) == this.sentinels.size() - 1));
    }

    /**
     * Replicas a Sentinel could promote now: up, replicating from the master as of its latest {@code INFO} (sent
     * every 10 s), which is recent enough for it to choose them (20 s here; Sentinel allows 30 s).
     */
    private static long promotableReplicas(RedisServer sentinel, int masterPort) {
        List<?> replicas = (List<?>) sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME);
        return replicas.stream()
            .map((replica) -> (List<?>) replica)
            .filter((replica) -> "slave".equals(fieldOf(replica, "flags"))
                    && ("" + masterPort).equals(fieldOf(replica, "master-port"))
                    && Long.parseLong(fieldOf(replica, "info-refresh")) < 20_000)
            .count();
    }

    private static long upSentinels(RedisServer sentinel) {
        List<?> sentinels = (List<?>) sentinel.command("SENTINEL", "SENTINELS", MASTER_NAME);
        return sentinels.stream().filter((other) -> "sentinel".equals(fieldOf((List<?>) other, "flags"))).count();
    }

    /** A field of a Sentinel's flat name/value reply about one instance. */
    private static String fieldOf(List<?> fields, String name) {
        for (int i = 0; i + 1 < fields.size(); i += 2) {
            if (name.equals(fields.get(i))) {
                return (String) fields.get(i + 1);
            }
        }
        return "0";
    }

    private static int masterPortSeenBy(RedisServer sentinel) {
        List<?> address = (List<?>) sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
        return Integer.parseInt((String) address.get(1));
    }

    private RedisServer serverOnPort(int port) {
        return this.servers.stream()
            .filter((server) -> server.port() == port)
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("Sentinel names an unknown master on port " + port));
    }

    private static String info(RedisServer server, String section) {
        try {
            return (String) server.command("INFO", section);
        }
        catch (RuntimeException ex) {
            // Not running, or restarting: no information yet.
            return "";
        }
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return null;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Sentinel topology: no " + what + " within 30 s");
            }
            // Replication and Sentinel gossip run on their own timers; only their state can be polled.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Override
    public void close() {
        this.sentinels.forEach(RedisServer::close);
        this.servers.forEach(RedisServer::close);
    }
}
