package io.github.redislock.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link RedisServer} per test class, for JUnit 5:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();
 * }</pre>
 *
 * Started before the first test of the class, stopped after the last; optionally emptied after each test so
 * tests do not see each other's keys. The common server operations are available on the extension itself.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, AfterEachCallback {

    private final boolean flushAfterEach;

    private RedisServer server;

    private RedisServerExtension(boolean flushAfterEach) {
        this.flushAfterEach = flushAfterEach;
    }

    /** A server shared by the class's tests, emptied after each. */
    public static RedisServerExtension flushedAfterEach() {
        return new RedisServerExtension(true);
    }

    /** A server shared by the class's tests, never emptied in between. */
    public static RedisServerExtension shared() {
        return new RedisServerExtension(false);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        this.server = RedisServer.start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (this.flushAfterEach && this.server.isRunning()) {
            this.server.flushAll();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (this.server != null) {
            this.server.close();
        }
    }

    /** The running server. */
    public RedisServer server() {
        if (this.server == null) {
            throw new IllegalStateException("The Redis server starts before the first test of the class");
        }
        return this.server;
    }

    /** @see RedisServer#command(String...) */
    public Object command(String... arguments) {
        return server().command(arguments);
    }

    /** @see RedisServer#url() */
    public String url() {
        return server().url();
    }

    /** @see RedisServer#flushAll() */
    public void flushAll() {
        server().flushAll();
    }
}
