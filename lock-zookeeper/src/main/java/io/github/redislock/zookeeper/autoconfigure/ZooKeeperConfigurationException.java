package io.github.redislock.zookeeper.autoconfigure;

/** A ZooKeeper lock setting that cannot work, with what to do about it; explained by a failure analyzer. */
final class ZooKeeperConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    ZooKeeperConfigurationException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    String getAction() {
        return this.action;
    }
}
