package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import io.github.redislock.testsupport.RedisServer;

/**
 * A master, a replica and three Sentinels the suite started, each in a network namespace of a {@link ServerLab} of
 * its own (servers 1 to 5, in that order), so that a fault can cut the master off from the replica and the Sentinels
 * while the workers, on the host, still reach all of them. Sentinels call a master down after
 * {@value #DOWN_AFTER_MILLIS} ms and need 2 of 3 to agree; a former master that comes back is made a replica of the
 * new one by the Sentinels.
 */
final class LabSentinel extends Topology {

    static final String MASTER_NAME = "mymaster";

    static final long DOWN_AFTER_MILLIS = 1000;

    private static final int REDIS_PORT = 6379;

    private static final int SENTINEL_PORT = 26379;

    private final ServerLab lab;

    private final List<RedisServer> servers;

    private final List<RedisServer> sentinels;

    private LabSentinel(ServerLab lab, List<RedisServer> servers, List<RedisServer> sentinels) {
        this.lab = lab;
        this.servers = servers;
        this.sentinels = sentinels;
    }

    static LabSentinel start() {
        ServerLab lab = ServerLab.open(5);
        List<RedisServer> servers = new ArrayList<>();
        List<RedisServer> sentinels = new ArrayList<>();
        try {
            RedisServer master = server(lab, 1).port(REDIS_PORT).start();
            servers.add(master);
            servers.add(server(lab, 2).port(REDIS_PORT)
                .arguments("--replicaof", master.host(), Integer.toString(REDIS_PORT)).start());
            for (int i = 3; i <= 5; i++) {
                sentinels.add(server(lab, i).port(SENTINEL_PORT)
                    .sentinel(List.of("sentinel monitor " + MASTER_NAME + " " + master.host() + " " + REDIS_PORT + " 2",
                            "sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
                            "sentinel failover-timeout " + MASTER_NAME + " 60000",
                            "sentinel parallel-syncs " + MASTER_NAME + " 1"))
                    .start());
            }
            LabSentinel topology = new LabSentinel(lab, servers, sentinels);
            topology.await("the replica in sync and every Sentinel knowing it and the others", topology::settled);
            return topology;
        }
        catch (RuntimeException ex) {
            sentinels.forEach(RedisServer::close);
            servers.forEach(RedisServer::close);
            lab.close();
            throw ex;
        }
    }

    private static RedisServer.Builder server(ServerLab lab, int index) {
        return RedisServer.builder().host(lab.address(index)).wrapper(lab.wrapper(index));
    }

    ServerLab lab() {
        return this.lab;
    }

    /** The master and the replica, as started (server 1 and 2 of the lab). */
    List<RedisServer> servers() {
        return this.servers;
    }

    /** The address the Sentinels name as the master now ({@code host:port}), by the first that answers. */
    String masterNamed() {
        for (RedisServer sentinel : this.sentinels) {
            try {
                List<?> address = (List<?>) sentinel.command("SENTINEL", "get-master-addr-by-name", MASTER_NAME);
                return address.get(0) + ":" + address.get(1);
            }
            catch (RuntimeException ex) {
                // Try the next one.
            }
        }
        return "none";
    }

    /** Each data server's role now ({@code master} or {@code slave}), as it says. */
    String roles() {
        return this.servers.stream().map((server) -> server.host() + " " + role(server))
            .collect(Collectors.joining(", "));
    }

    /** Waits until the Sentinels name another master than the one started (server 1); false after the timeout. */
    boolean awaitFailover(long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        String first = this.servers.get(0).host() + ":" + REDIS_PORT;
        while (System.nanoTime() < deadline) {
            if (!masterNamed().equals(first) && !masterNamed().equals("none")) {
                return true;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
        return false;
    }

    private boolean settled() {
        if (!((String) this.servers.get(1).command("INFO", "replication")).contains("master_link_status:up")) {
            return false;
        }
        for (RedisServer sentinel : this.sentinels) {
            if (((List<?>) sentinel.command("SENTINEL", "replicas", MASTER_NAME)).size() != 1
                    || ((List<?>) sentinel.command("SENTINEL", "sentinels", MASTER_NAME)).size() != 2) {
                return false;
            }
        }
        return true;
    }

    private static String role(RedisServer server) {
        try {
            return (String) ((List<?>) server.command("ROLE")).get(0);
        }
        catch (RuntimeException ex) {
            return "unreachable";
        }
    }

    private void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Sentinel set-up: waited 30 s for " + what);
            }
            // Replication and Sentinel discovery converge on their own schedule: the state is polled.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Override
    Map<String, String> workerProperties() {
        return Map.of("spring.data.redis.sentinel.master", MASTER_NAME, "spring.data.redis.sentinel.nodes",
                this.sentinels.stream().map((s) -> s.host() + ":" + s.port()).collect(Collectors.joining(",")),
                "redis-lock.replicas-to-acknowledge", "0");
    }

    @Override
    String describe() {
        return "Sentinel: master, 1 replica, 3 Sentinels, each in a network namespace of its own";
    }

    @Override
    public void close() {
        this.sentinels.forEach(RedisServer::close);
        this.servers.forEach(RedisServer::close);
        this.lab.close();
    }
}
