package io.github.redislock.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link RedisServer} for a test class's tests, for JUnit 5:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();
 * }</pre>
 *
 * One server for the whole class (started before its first test, stopped after its last, optionally emptied
 * after each test so that tests do not see each other's keys), or a fresh one for every test. The server starts
 * with default settings unless {@link #configured configured} otherwise. The common server operations are
 * available on the extension itself. A test that needs servers of its own besides this one (a replica, a second
 * server to stop or freeze while this one serves) starts them with {@link RedisServer#start()} in
 * try-with-resources.
 */
public final class RedisServerExtension
        implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

    /** How long one server lives, and whether its keys are deleted between tests. */
    private enum Lifetime {

        CLASS_FLUSHED, CLASS, TEST

    }

    private final Lifetime lifetime;

    private final RedisServer.Builder options;

    private RedisServer server;

    /**
     * The class (or test) whose start-up started the server: a {@code @Nested} class inherits the extension and
     * its callbacks, and shares its outer class's server rather than starting and stopping one of its own.
     */
    private String startedFor;

    private RedisServerExtension(Lifetime lifetime, RedisServer.Builder options) {
        this.lifetime = lifetime;
        this.options = options;
    }

    /** A server shared by the class's tests, emptied after each. */
    public static RedisServerExtension flushedAfterEach() {
        return new RedisServerExtension(Lifetime.CLASS_FLUSHED, RedisServer.builder());
    }

    /** A server shared by the class's tests, never emptied in between. */
    public static RedisServerExtension shared() {
        return new RedisServerExtension(Lifetime.CLASS, RedisServer.builder());
    }

    /**
     * A fresh server for every test, started before it and stopped after it (after the test's own
     * {@code @AfterEach} methods): for tests that stop, pause, kill or restart the server, or read its statistics
     * from zero.
     */
    public static RedisServerExtension perTest() {
        return new RedisServerExtension(Lifetime.TEST, RedisServer.builder());
    }

    /**
     * The same lifetime, with every server started from these options instead of the defaults, e.g.
     * {@code RedisServerExtension.shared().configured(RedisServer.builder().arguments("--cluster-enabled", "yes"))}.
     */
    public RedisServerExtension configured(RedisServer.Builder options) {
        return new RedisServerExtension(this.lifetime, options);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (this.lifetime != Lifetime.TEST) {
            startFor(context);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (this.lifetime == Lifetime.TEST) {
            startFor(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (this.lifetime == Lifetime.TEST) {
            stopFor(context);
        }
        else if (this.lifetime == Lifetime.CLASS_FLUSHED && this.server.isRunning()) {
            this.server.flushAll();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        stopFor(context);
    }

    private void startFor(ExtensionContext context) {
        if (this.server == null) {
            this.server = this.options.start();
            this.startedFor = context.getUniqueId();
        }
    }

    private void stopFor(ExtensionContext context) {
        if (this.server != null && context.getUniqueId().equals(this.startedFor)) {
            this.server.close();
            this.server = null;
            this.startedFor = null;
        }
    }

    /** The running server. */
    public RedisServer server() {
        if (this.server == null) {
            throw new IllegalStateException((this.lifetime == Lifetime.TEST)
                    ? "The Redis server starts before each test and stops after it"
                    : "The Redis server starts before the first test of the class");
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
