package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Independent local masters for Redlock tests, for JUnit 5, started once per test class:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedlockMasters masters = new RedlockMasters(5);
 * }</pre>
 *
 * After each test the connection factories handed out by {@link #connect} are destroyed, and every master is
 * brought back to a running, empty state: restarted if a test stopped it, resumed if it paused it, flushed.
 */
public final class RedlockMasters implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final int count;

    private final List<RedisServer> masters = new ArrayList<>();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    /** @param count how many masters, at least 3 for Redlock */
    public RedlockMasters(int count) {
        this.count = count;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        for (int i = 0; i < this.count; i++) {
            this.masters.add(RedisServer.start());
        }
    }

    /**
     * Each factory destroyed within {@link TestConnections#destroy}'s limit (an extension's callback has no JUnit
     * timeout: a shutdown that never ends would hang the build), all of them and every master brought back even
     * when one fails; then the first failure is thrown.
     */
    @Override
    public void afterEach(ExtensionContext context) {
        RuntimeException failure = null;
        for (RedisConnectionFactory factory : this.factories) {
            try {
                TestConnections.destroy(factory);
            }
            catch (RuntimeException ex) {
                failure = (failure != null) ? failure : ex;
            }
        }
        this.factories.clear();
        for (RedisServer master : this.masters) {
            if (!master.isRunning()) {
                master.restart();
            }
            master.resume();
            master.flushAll();
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Stops the masters; a run of the class again (same extension instance, same JVM) starts new ones. */
    @Override
    public void afterAll(ExtensionContext context) {
        this.masters.forEach(RedisServer::close);
        this.masters.clear();
    }

    /** Master {@code i}. */
    public RedisServer get(int i) {
        return this.masters.get(i);
    }

    /** Every master, in order. */
    public List<RedisServer> all() {
        return this.masters;
    }

    /**
     * One started Lettuce factory per master, destroyed after the test. A test that restarts a master may want
     * fresh ones: a factory whose node was down may still be in its reconnect back-off.
     */
    public List<RedisConnectionFactory> connect(Duration commandTimeout) {
        return connect(commandTimeout, TestConnections.ClientLibrary.LETTUCE);
    }

    /** One started factory of that client library per master, destroyed after the test. */
    public List<RedisConnectionFactory> connect(Duration commandTimeout, TestConnections.ClientLibrary library) {
        List<RedisConnectionFactory> connected = new ArrayList<>();
        for (RedisServer master : this.masters) {
            connected.add(library.connect(master, commandTimeout));
        }
        this.factories.addAll(connected);
        return connected;
    }
}
