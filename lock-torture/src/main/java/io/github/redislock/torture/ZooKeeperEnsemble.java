package io.github.redislock.torture;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Three ZooKeeper servers the suite started as one ensemble, each in a network namespace of a {@link ServerLab} of
 * its own, so that a fault can kill one (the leader) or cut the links between them while the workers, on the host,
 * still reach every one. The workers connect to all three ({@code redis-lock.zookeeper.connect-string}), with a
 * session timeout of one lease, as on the single server.
 */
final class ZooKeeperEnsemble extends Topology {

    static final int MEMBERS = 3;

    private final ServerLab lab;

    private final List<ZooKeeperServerProcess> servers;

    private final Duration sessionTimeout;

    private ZooKeeperEnsemble(ServerLab lab, List<ZooKeeperServerProcess> servers, Duration sessionTimeout) {
        this.lab = lab;
        this.servers = servers;
        this.sessionTimeout = sessionTimeout;
    }

    static ZooKeeperEnsemble start(String classPath, Path logDirectory, Duration sessionTimeout) {
        ServerLab lab = ServerLab.open(MEMBERS);
        try {
            return new ZooKeeperEnsemble(lab,
                    ZooKeeperServerProcess.startEnsemble(classPath, logDirectory, lab, MEMBERS), sessionTimeout);
        }
        catch (RuntimeException ex) {
            lab.close();
            throw ex;
        }
    }

    ServerLab lab() {
        return this.lab;
    }

    /** The members, server {@code i + 1} at index {@code i} (its number in the lab and in {@code myid}). */
    List<ZooKeeperServerProcess> servers() {
        return this.servers;
    }

    /** The member that says it leads now (1-based); fails when none does. */
    int leader() {
        for (int i = 0; i < this.servers.size(); i++) {
            if ("leader".equals(modeOf(i))) {
                return i + 1;
            }
        }
        throw new IllegalStateException("No ZooKeeper server of the ensemble leads");
    }

    /** A member's mode, or {@code down} when it does not answer (killed, or not serving). */
    String modeOf(int index) {
        try {
            return this.servers.get(index).mode();
        }
        catch (RuntimeException ex) {
            return "down";
        }
    }

    @Override
    Map<String, String> workerProperties() {
        return Map.of("redis-lock.zookeeper.connect-string",
                this.servers.stream().map(ZooKeeperServerProcess::connectString).collect(Collectors.joining(",")),
                "redis-lock.zookeeper.session-timeout", this.sessionTimeout.toMillis() + "ms",
                "redis-lock.zookeeper.connection-timeout", "2s");
    }

    @Override
    String describe() {
        return "a ZooKeeper " + ZooKeeperServerProcess.version() + " ensemble of " + MEMBERS
                + " servers, session timeout " + this.sessionTimeout.toMillis() + " ms";
    }

    @Override
    public void close() {
        this.servers.forEach(ZooKeeperServerProcess::close);
        this.lab.close();
    }
}
