package io.github.redislock.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.redislock.testsupport.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Independent local masters for Redlock tests, started once per test class; after each test the connection
 * factories handed out are destroyed and every master is resumed (a test may have paused one) and flushed.
 */
public final class RedlockMasters implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private final int count;

    private final List<RedisServer> masters = new ArrayList<>();

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    public RedlockMasters(int count) {
        this.count = count;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        for (int i = 0; i < this.count; i++) {
            this.masters.add(RedisServer.start());
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        this.factories.forEach(TestConnections::destroy);
        this.factories.clear();
        for (RedisServer master : this.masters) {
            master.resume();
            master.flushAll();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        this.masters.forEach(RedisServer::close);
    }

    /** Master {@code i}. */
    public RedisServer get(int i) {
        return this.masters.get(i);
    }

    /** Every master. */
    public List<RedisServer> all() {
        return this.masters;
    }

    /** One Lettuce factory per master, destroyed after the test. */
    public List<RedisConnectionFactory> connect(Duration commandTimeout) {
        List<RedisConnectionFactory> connected = new ArrayList<>();
        for (RedisServer master : this.masters) {
            connected.add(TestConnections.lettuce(master, commandTimeout));
        }
        this.factories.addAll(connected);
        return connected;
    }
}
