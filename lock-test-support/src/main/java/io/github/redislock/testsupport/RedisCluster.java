package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A Redis Cluster of real {@code redis-server} processes on loopback ports: {@code masters} primaries with the
 * 16384 hash slots split evenly, each with as many replicas as asked (none by default). Built the way
 * {@code redis-cli --cluster create} does it: every node started with {@code --cluster-enabled yes}, slots assigned
 * with {@code CLUSTER ADDSLOTS}, nodes introduced with {@code CLUSTER MEET}, replicas attached with
 * {@code CLUSTER REPLICATE}; ready once every node reports {@code cluster_state:ok} and every replica is in sync.
 * <p>
 * Fault controls: {@link #failOver(RedisServer)} kills a master and waits until its replica serves its slots,
 * then restarts it (it comes back as that replica's replica); {@link #migrateSlot(int, RedisServer)} moves a slot
 * and its keys to another master, as {@code redis-cli --cluster reshard} does.
 */
public final class RedisCluster implements AutoCloseable {

    private static final int SLOTS = 16384;

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final List<RedisServer> nodes;

    private final int masters;

    private RedisCluster(List<RedisServer> nodes, int masters) {
        this.nodes = List.copyOf(nodes);
        this.masters = masters;
    }

    /** Starts a cluster of the given number of masters (at least 1) and waits until it serves every slot. */
    public static RedisCluster start(int masters) {
        return start(masters, 0, 5000);
    }

    /**
     * Starts a cluster of {@code masters} masters (at least 1) with {@code replicas} replicas each, whose nodes call
     * a silent node failed after {@code nodeTimeoutMillis} ({@code cluster-node-timeout}; a replica of a failed
     * master takes over soon after), and waits until it serves every slot with every replica in sync.
     */
    public static RedisCluster start(int masters, int replicas, long nodeTimeoutMillis) {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < masters * (1 + replicas); i++) {
                nodes.add(RedisServer.builder().arguments("--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes-" + i + ".conf", "--cluster-node-timeout", Long.toString(nodeTimeoutMillis)).start());
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
            for (int i = 1; i < nodes.size(); i++) {
                nodes.get(i).command("CLUSTER", "MEET", first.host(), Integer.toString(first.port()));
            }
            RedisCluster cluster = new RedisCluster(nodes, masters);
            cluster.await("every node to know every other", cluster::allKnown);
            for (int i = masters; i < nodes.size(); i++) {
                RedisServer master = nodes.get((i - masters) % masters);
                nodes.get(i).command("CLUSTER", "REPLICATE", nodeId(master));
            }
            cluster.await("cluster_state:ok with every replica in sync", cluster::allOk);
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

    /** The nodes that serve slots now (after a failover, a former replica among them). */
    public List<RedisServer> masters() {
        return this.nodes.stream().filter((node) -> node.isRunning() && role(node).equals("master")).toList();
    }

    /** The slot of a key ({@code CLUSTER KEYSLOT}). */
    public int slot(String key) {
        return ((Long) masters().get(0).command("CLUSTER", "KEYSLOT", key)).intValue();
    }

    /** The master that serves the slot now, by its own account. */
    public RedisServer masterOf(int slot) {
        for (RedisServer master : masters()) {
            if (servesSlot(master, slot)) {
                return master;
            }
        }
        throw new IllegalStateException("No master serves slot " + slot);
    }

    /**
     * Kills the master (SIGKILL), waits until one of its replicas has taken over its slots and every running node
     * says {@code cluster_state:ok}, then restarts it: it rejoins as a replica of the new master.
     * @return the replica that took over
     */
    public RedisServer failOver(RedisServer master) {
        String id = nodeId(master);
        List<RedisServer> replicas = this.nodes.stream()
            .filter((node) -> node != master && node.isRunning() && id.equals(masterIdOf(node)))
            .toList();
        if (replicas.isEmpty()) {
            throw new IllegalStateException(master + " has no replica to take over");
        }
        master.kill();
        await("a replica of " + master + " to take over", () -> replicas.stream().anyMatch((r) -> role(r).equals("master"))
                && this.nodes.stream().filter(RedisServer::isRunning).allMatch(RedisCluster::stateOk));
        RedisServer promoted = replicas.stream().filter((r) -> role(r).equals("master")).findFirst().orElseThrow();
        master.restart();
        await(master + " to rejoin as a replica", () -> role(master).equals("slave") && linkUp(master));
        return promoted;
    }

    /**
     * Moves the slot and its keys (with their expiry) from the master that serves it to {@code target}, another
     * master: {@code IMPORTING} on the target, {@code MIGRATING} on the source, {@code MIGRATE} of its keys in
     * batches, then {@code SETSLOT NODE} on every master. Meanwhile the source answers a command for a key it no
     * longer has with {@code ASK}, and a script over some keys of the slot that moved and some that did not with
     * {@code TRYAGAIN}.
     */
    public void migrateSlot(int slot, RedisServer target) {
        RedisServer source = masterOf(slot);
        if (source == target) {
            throw new IllegalArgumentException(target + " serves slot " + slot + " already");
        }
        String slotText = Integer.toString(slot);
        target.command("CLUSTER", "SETSLOT", slotText, "IMPORTING", nodeId(source));
        source.command("CLUSTER", "SETSLOT", slotText, "MIGRATING", nodeId(target));
        while (true) {
            List<?> keys = (List<?>) source.command("CLUSTER", "GETKEYSINSLOT", slotText, "100");
            if (keys.isEmpty()) {
                break;
            }
            List<String> command = new ArrayList<>(List.of("MIGRATE", target.host(), Integer.toString(target.port()), "",
                    "0", "5000", "KEYS"));
            keys.forEach((key) -> command.add((String) key));
            source.command(command.toArray(new String[0]));
        }
        for (RedisServer master : masters()) {
            master.command("CLUSTER", "SETSLOT", slotText, "NODE", nodeId(target));
        }
        await("every master to see slot " + slot + " on " + target,
                () -> masters().stream().allMatch((m) -> target.equals(ownerSeenBy(m, slot))));
    }

    /** The master the node says serves the slot; null when it names none of the current masters. */
    private RedisServer ownerSeenBy(RedisServer node, int slot) {
        for (RedisServer candidate : masters()) {
            String id = nodeId(candidate);
            for (String line : ((String) node.command("CLUSTER", "NODES")).lines().toList()) {
                if (line.startsWith(id + " ") && lineServes(line, slot)) {
                    return candidate;
                }
            }
        }
        return null;
    }

    private static boolean servesSlot(RedisServer master, int slot) {
        String id = nodeId(master);
        return ((String) master.command("CLUSTER", "NODES")).lines()
            .anyMatch((line) -> line.startsWith(id + " ") && lineServes(line, slot));
    }

    /** Whether a {@code CLUSTER NODES} line lists the slot among its ranges (fields 9 on). */
    private static boolean lineServes(String line, int slot) {
        String[] fields = line.split(" ");
        for (int i = 8; i < fields.length; i++) {
            if (fields[i].startsWith("[")) {
                continue;
            }
            String[] range = fields[i].split("-");
            int from = Integer.parseInt(range[0]);
            int to = (range.length > 1) ? Integer.parseInt(range[1]) : from;
            if (slot >= from && slot <= to) {
                return true;
            }
        }
        return false;
    }

    /** The node's id, from its own line of {@code CLUSTER NODES} ({@code CLUSTER MYID} is Redis 7's only). */
    static String nodeId(RedisServer node) {
        return ((String) node.command("CLUSTER", "NODES")).lines()
            .filter((line) -> line.split(" ")[2].contains("myself"))
            .map((line) -> line.split(" ")[0])
            .findFirst()
            .orElseThrow(() -> new IllegalStateException(node + " lists no node of its own"));
    }

    private static String role(RedisServer node) {
        return (String) ((List<?>) node.command("ROLE")).get(0);
    }

    /** The id of the master the node replicates, by its own account; null for a master. */
    private static String masterIdOf(RedisServer node) {
        String id = nodeId(node);
        for (String line : ((String) node.command("CLUSTER", "NODES")).lines().toList()) {
            String[] fields = line.split(" ");
            if (fields[0].equals(id)) {
                return fields[3].equals("-") ? null : fields[3];
            }
        }
        return null;
    }

    private static boolean linkUp(RedisServer replica) {
        return ((String) replica.command("INFO", "replication")).contains("master_link_status:up");
    }

    private static boolean stateOk(RedisServer node) {
        return ((String) node.command("CLUSTER", "INFO")).contains("cluster_state:ok");
    }

    private boolean allKnown() {
        return this.nodes.stream().allMatch((node) -> ((String) node.command("CLUSTER", "INFO"))
            .contains("cluster_known_nodes:" + this.nodes.size()));
    }

    private boolean allOk() {
        return allKnown() && this.nodes.stream().allMatch(RedisCluster::stateOk)
                && this.nodes.subList(this.masters, this.nodes.size()).stream().allMatch(RedisCluster::linkUp);
    }

    private void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Redis Cluster: waited 30 s for " + what);
            }
            // Gossip converges on its own schedule; there is nothing to wait on but the state itself.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
        }
    }

    @Override
    public void close() {
        this.nodes.forEach(RedisServer::close);
    }
}
