package io.github.redislock.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link ZooKeeperServer} per test class, for JUnit 5, as {@link RedisServerExtension} is for Redis:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();
 * }</pre>
 *
 * Started before the first test of the class, stopped after the last.
 */
public final class ZooKeeperServerExtension implements BeforeAllCallback, AfterAllCallback {

    private ZooKeeperServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        this.server = new ZooKeeperServer();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (this.server != null) {
            this.server.close();
        }
    }

    /** The running server. */
    public ZooKeeperServer server() {
        if (this.server == null) {
            throw new IllegalStateException("The ZooKeeper server starts before the first test of the class");
        }
        return this.server;
    }
}
