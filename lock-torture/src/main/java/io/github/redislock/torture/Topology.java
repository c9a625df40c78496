package io.github.redislock.torture;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisSentinel;
import io.github.redislock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * The Redis the workers lock on, and how they are told to: the {@code spring.data.redis.*} or
 * {@code redis-lock.*} properties a user would set. Either servers the suite started (which its faults may
 * signal, by PID) or a user's own endpoints (which it never touches but through the workers' locks). Or, for the
 * {@code zookeeper-*} scenarios, a ZooKeeper server the suite started.
 */
abstract class Topology implements AutoCloseable {

    /** The properties that point a worker at this topology. */
    abstract Map<String, String> workerProperties();

    /** One line for the report: what ran and where. */
    abstract String describe();

    @Override
    public abstract void close();

    /** One Redis: a server the suite started, or the user's URL. */
    static final class Single extends Topology {

        private final @Nullable RedisServer server;

        private final String url;

        private Single(@Nullable RedisServer server, String url) {
            this.server = server;
            this.url = url;
        }

        /**
         * @param binary the {@code redis-server} to run
         * @param environment extra variables for the server process, e.g. those of a {@link FakeClock}
         */
        static Single start(Path binary, Map<String, String> environment) {
            RedisServer server = RedisServer.builder().binary(binary).environment(environment).start();
            return new Single(server, server.url());
        }

        static Single external(String url) {
            return new Single(null, url);
        }

        RedisServer server() {
            if (this.server == null) {
                throw new IllegalStateException("Faults are injected only into a Redis the suite started");
            }
            return this.server;
        }

        @Override
        Map<String, String> workerProperties() {
            return Map.of("spring.data.redis.url", this.url);
        }

        @Override
        String describe() {
            return (this.server != null) ? "one Redis" : "one Redis at " + this.url;
        }

        @Override
        public void close() {
            if (this.server != null) {
                this.server.close();
            }
        }
    }

    /** A master, a replica and three Sentinels the suite started; or the user's Sentinels. */
    static final class Sentinel extends Topology {

        private final @Nullable RedisSentinel sentinel;

        private final String master;

        private final List<String> nodes;

        private final int replicasToAcknowledge;

        private Sentinel(@Nullable RedisSentinel sentinel, String master, List<String> nodes,
                int replicasToAcknowledge) {
            this.sentinel = sentinel;
            this.master = master;
            this.nodes = nodes;
            this.replicasToAcknowledge = replicasToAcknowledge;
        }

        static Sentinel start(int replicasToAcknowledge) {
            RedisSentinel sentinel = RedisSentinel.start(1);
            return new Sentinel(sentinel, RedisSentinel.MASTER_NAME, sentinel.sentinelAddresses(),
                    replicasToAcknowledge);
        }

        /** {@code master@host:port,host:port}. */
        static Sentinel external(String spec, int replicasToAcknowledge) {
            int at = spec.indexOf('@');
            if (at <= 0 || at == spec.length() - 1) {
                throw new IllegalArgumentException("--sentinel wants <master name>@<host:port>[,<host:port>…], not "
                        + spec);
            }
            return new Sentinel(null, spec.substring(0, at), List.of(spec.substring(at + 1).split(",")),
                    replicasToAcknowledge);
        }

        RedisSentinel sentinel() {
            if (this.sentinel == null) {
                throw new IllegalStateException("Faults are injected only into a Sentinel set-up the suite started");
            }
            return this.sentinel;
        }

        @Override
        Map<String, String> workerProperties() {
            return Map.of("spring.data.redis.sentinel.master", this.master, "spring.data.redis.sentinel.nodes",
                    String.join(",", this.nodes), "redis-lock.replicas-to-acknowledge",
                    Integer.toString(this.replicasToAcknowledge));
        }

        @Override
        String describe() {
            String acknowledged = (this.replicasToAcknowledge > 0)
                    ? ", replicas-to-acknowledge " + this.replicasToAcknowledge : "";
            return (this.sentinel != null) ? "Sentinel: master, 1 replica, 3 Sentinels" + acknowledged
                    : "Sentinel " + this.master + " at " + this.nodes + acknowledged;
        }

        @Override
        public void close() {
            if (this.sentinel != null) {
                this.sentinel.close();
            }
        }
    }

    /** Independent masters for Redlock: five the suite started, or the user's. */
    static final class Redlock extends Topology {

        private final List<RedisServer> servers;

        private final List<String> urls;

        private Redlock(List<RedisServer> servers, List<String> urls) {
            this.servers = servers;
            this.urls = urls;
        }

        static Redlock start(int nodes) {
            List<RedisServer> servers = new ArrayList<>();
            try {
                for (int i = 0; i < nodes; i++) {
                    servers.add(RedisServer.start());
                }
            }
            catch (RuntimeException ex) {
                servers.forEach(RedisServer::close);
                throw ex;
            }
            return new Redlock(servers, servers.stream().map(RedisServer::url).toList());
        }

        static Redlock external(String urls) {
            return new Redlock(List.of(), List.of(urls.split(",")));
        }

        List<RedisServer> servers() {
            if (this.servers.isEmpty()) {
                throw new IllegalStateException("Faults are injected only into Redlock nodes the suite started");
            }
            return this.servers;
        }

        @Override
        Map<String, String> workerProperties() {
            // The nodes only; spring.data.redis still configures the client library the node connections use.
            return Map.of("redis-lock.redlock.nodes", String.join(",", this.urls));
        }

        @Override
        String describe() {
            return "Redlock, " + this.urls.size() + " masters" + (this.servers.isEmpty() ? " at " + this.urls : "");
        }

        @Override
        public void close() {
            this.servers.forEach(RedisServer::close);
        }
    }

    /** A Redis Cluster the suite started: 3 masters, a replica each, nodes that call a silent node failed after 1 s. */
    static final class Cluster extends Topology {

        /** Short enough that a replica takes over within a lease of the torture's default 3 s. */
        static final long NODE_TIMEOUT_MILLIS = 1000;

        private final RedisCluster cluster;

        private Cluster(RedisCluster cluster) {
            this.cluster = cluster;
        }

        static Cluster start() {
            return new Cluster(RedisCluster.start(3, 1, NODE_TIMEOUT_MILLIS));
        }

        RedisCluster cluster() {
            return this.cluster;
        }

        @Override
        Map<String, String> workerProperties() {
            return Map.of("spring.data.redis.cluster.nodes", String.join(",", this.cluster.nodeAddresses()));
        }

        @Override
        String describe() {
            return "Redis Cluster: 3 masters, 1 replica each, cluster-node-timeout " + NODE_TIMEOUT_MILLIS + " ms";
        }

        @Override
        public void close() {
            this.cluster.close();
        }
    }

    /**
     * One ZooKeeper server the suite started, in a JVM of its own; the workers use the ZooKeeper store
     * ({@code redis-lock.zookeeper.connect-string}) with a session timeout of one lease, so that the faults that
     * outlast a lease on Redis outlast a session on ZooKeeper.
     */
    static final class ZooKeeper extends Topology {

        private final ZooKeeperServerProcess server;

        private final Duration sessionTimeout;

        private ZooKeeper(ZooKeeperServerProcess server, Duration sessionTimeout) {
            this.server = server;
            this.sessionTimeout = sessionTimeout;
        }

        /**
         * @param environment extra variables for the server's JVM, e.g. those of a {@link FakeClock}
         */
        static ZooKeeper start(String classPath, Path logDirectory, Map<String, String> environment,
                Duration sessionTimeout) {
            return new ZooKeeper(ZooKeeperServerProcess.start(classPath, logDirectory, environment), sessionTimeout);
        }

        ZooKeeperServerProcess server() {
            return this.server;
        }

        @Override
        Map<String, String> workerProperties() {
            // Lock calls wait for a connection as long as Redis commands wait for an answer (2 s) in the others.
            return Map.of("redis-lock.zookeeper.connect-string", this.server.connectString(),
                    "redis-lock.zookeeper.session-timeout", this.sessionTimeout.toMillis() + "ms",
                    "redis-lock.zookeeper.connection-timeout", "2s");
        }

        @Override
        String describe() {
            return "one ZooKeeper " + ZooKeeperServerProcess.version() + " server, session timeout "
                    + this.sessionTimeout.toMillis() + " ms";
        }

        @Override
        public void close() {
            this.server.close();
        }
    }
}
