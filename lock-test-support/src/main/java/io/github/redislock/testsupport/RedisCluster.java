package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A Redis Cluster of real {@code redis-server} processes on loopback ports: {@code masters} primaries with the
 * 16384 hash slots split evenly, no replicas. Built the way {@code redis-cli --cluster create} does it:
 * every node started with {@code --cluster-enabled yes}, slots assigned with {@code CLUSTER ADDSLOTS}, nodes
 * introduced with {@code CLUSTER MEET}; ready once every node reports {@code cluster_state:ok}.
 */
public final class RedisCluster implements AutoCloseable {

    private static final int SLOTS = 16384;

    private final List<RedisServer> nodes;

    private RedisCluster(List<RedisServer> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** Starts a cluster of the given number of masters (at least 1) and waits until it serves every slot. */
    public static RedisCluster start(int masters) {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters; i++) {
                nodes.add(RedisServer.builder().arguments("--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes-" + i + ".conf", "--cluster-node-timeout", "5000").start());
            }
            for (int i = 0; i < masters; i++) {
                int from = SLOTS * i / masters;
                int to = SLOTS * (i + 1) / masters;
                List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
                for (int slot = from; slot < to; slot++) {
                    command.add(Integer.toString(slot));
                }
                nodes.get(i).command(command.toArray(new String[0]));
            }
            RedisServer first = nodes.get(0);
            for (int i = 1; i < masters; i++) {
                nodes.get(i).command("CLUSTER", "MEET", first.host(), Integer.toString(first.port()));
            }
            RedisCluster cluster = new RedisCluster(nodes);
            cluster.awaitReady();
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServer::close);
            throw ex;
        }
    }

    /** The nodes, for fault injection ({@link RedisServer#pause()} etc.). */
    public List<RedisServer> nodes() {
        return this.nodes;
    }

    /** {@code 127.0.0.1:port} of every node, as {@code spring.data.redis.cluster.nodes} wants them. */
    public List<String> nodeAddresses() {
        return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
    }

    /** The node that serves the key's slot. */
    public RedisServer nodeFor(String key) {
        long slot = (Long) this.nodes.get(0).command("CLUSTER", "KEYSLOT", key);
        int index = (int) (slot * this.nodes.size() / SLOTS);
        while (index + 1 < this.nodes.size() && slot >= (long) SLOTS * (index + 1) / this.nodes.size()) {
            index++;
        }
        while (index > 0 && slot < (long) SLOTS * index / this.nodes.size()) {
            index--;
        }
        return this.nodes.get(index);
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!allOk()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Redis Cluster did not reach cluster_state:ok within 30 s");
            }
            // Gossip converges on its own schedule; there is nothing to wait on but the state itself.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    private boolean allOk() {
        for (RedisServer node : this.nodes) {
            String info = (String) node.command("CLUSTER", "INFO");
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + this.nodes.size())) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        this.nodes.forEach(RedisServer::close);
    }
}
