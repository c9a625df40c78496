package io.github.redislock.zookeeper;

import org.apache.zookeeper.common.PathUtils;

/** The base path under which lock nodes are made: an absolute ZooKeeper path outside {@code /zookeeper}. */
public final class BasePaths {

    private BasePaths() {
    }

    /**
     * The path itself, if valid.
     * @throws IllegalArgumentException naming what is wrong: not absolute, an empty segment or a trailing slash,
     * {@code .} or {@code ..} as a segment, a character ZooKeeper refuses, or inside ZooKeeper's own
     * {@code /zookeeper}
     */
    public static String checked(String path) {
        // ZooKeeper's own rules, with its own messages ("Path must start with / character", ...).
        PathUtils.validatePath(path);
        if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
            throw new IllegalArgumentException("/zookeeper is reserved for ZooKeeper itself");
        }
        return path;
    }
}
