package io.github.redislock.zookeeper.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Where the ZooKeeper lock store keeps its locks. The rest of the locks' settings (wait time, lease time,
 * on-lease-lost, ...) are the {@code redis-lock.*} properties, as for Redis.
 */
@ConfigurationProperties("redis-lock.zookeeper")
public class ZooKeeperLockProperties {

    /**
     * The ZooKeeper ensemble, as ZooKeeper writes it: comma-separated host:port pairs, optionally followed by a
     * chroot path (e.g. "zk1:2181,zk2:2181,zk3:2181/apps"). Setting it turns the ZooKeeper store on, unless the
     * application defines its own CuratorFramework bean, which is then used instead.
     */
    private @Nullable String connectString;

    /**
     * The ZooKeeper session timeout asked for (the servers bound it, by default to 2 to 20 times their tick
     * time). A holder whose session expires has lost its locks: a pause or partition longer than this ends them.
     */
    private Duration sessionTimeout = Duration.ofSeconds(30);

    /**
     * How long a lock call waits for a connection to the ensemble before it fails with LockException, and how
     * long Curator waits for each connection attempt.
     */
    private Duration connectionTimeout = Duration.ofSeconds(5);

    /**
     * The absolute path under which each key gets its node (a container node, deleted by the servers when no
     * lock of it is held or waited for).
     */
    private String basePath = "/redis-lock";

    public @Nullable String getConnectString() {
        return this.connectString;
    }

    public void setConnectString(@Nullable String connectString) {
        this.connectString = connectString;
    }

    public Duration getSessionTimeout() {
        return this.sessionTimeout;
    }

    public void setSessionTimeout(Duration sessionTimeout) {
        this.sessionTimeout = sessionTimeout;
    }

    public Duration getConnectionTimeout() {
        return this.connectionTimeout;
    }

    public void setConnectionTimeout(Duration connectionTimeout) {
        this.connectionTimeout = connectionTimeout;
    }

    public String getBasePath() {
        return this.basePath;
    }

    public void setBasePath(String basePath) {
        this.basePath = basePath;
    }
}
