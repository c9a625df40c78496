package io.github.redislock.zookeeper.autoconfigure;

import java.net.InetSocketAddress;
import java.util.List;

import org.apache.zookeeper.client.ConnectStringParser;

import io.github.redislock.zookeeper.BasePaths;

/** Checks the ZooKeeper settings before anything connects, so that a bad one stops the start-up, named. */
final class ZooKeeperSettings {

    private ZooKeeperSettings() {
    }

    /** The connect string, if ZooKeeper can parse it into at least one host and port (and a valid chroot). */
    static String connectString(String connectString) {
        String problem;
        try {
            List<InetSocketAddress> servers = new ConnectStringParser(connectString).getServerAddresses();
            if (!servers.isEmpty()) {
                return connectString;
            }
            problem = "it names no server";
        }
        catch (RuntimeException ex) {
            problem = ex.getMessage();
        }
        throw new ZooKeeperConfigurationException("redis-lock.zookeeper.connect-string '" + connectString
                + "' is not a ZooKeeper connect string: " + problem + ".",
                "Set redis-lock.zookeeper.connect-string to comma-separated host:port pairs, optionally followed "
                        + "by a chroot path, e.g. zk1:2181,zk2:2181,zk3:2181 or zk1:2181/apps.", null);
    }

    /** The base path, if it is a valid absolute ZooKeeper path outside /zookeeper. */
    static String basePath(String basePath) {
        try {
            return BasePaths.checked(basePath);
        }
        catch (IllegalArgumentException ex) {
            throw new ZooKeeperConfigurationException("redis-lock.zookeeper.base-path '" + basePath
                    + "' is not a valid ZooKeeper path for the locks: " + ex.getMessage() + ".",
                    "Set redis-lock.zookeeper.base-path to an absolute path without a trailing slash, e.g. "
                            + "/redis-lock or /apps/orders/locks.", ex);
        }
    }
}
