package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.TestConnections;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The applications of one test, each a {@link TestRedisClient} on a connection factory of its own, as separate
 * processes would have them; all closed after each test (clients first, then their factories). Register it as an
 * instance field with {@code @RegisterExtension}.
 */
final class TestApplications implements AfterEachCallback {

    private final Supplier<RedisConnectionFactory> connect;

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<TestRedisClient> clients = new ArrayList<>();

    /** @param connect a new connection factory to the test's Redis, for each application */
    TestApplications(Supplier<RedisConnectionFactory> connect) {
        this.connect = connect;
    }

    /** A new application without a key prefix, its locks renewed with a 30 s lease. */
    synchronized TestRedisClient start() {
        RedisConnectionFactory factory = this.connect.get();
        this.factories.add(factory);
        TestRedisClient client = TestRedisClient.of(factory, "", Duration.ofSeconds(30), LockLossListener.NONE, null);
        this.clients.add(client);
        return client;
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) {
        this.clients.forEach(TestRedisClient::close);
        this.factories.forEach(TestConnections::destroy);
        this.clients.clear();
        this.factories.clear();
    }
}
