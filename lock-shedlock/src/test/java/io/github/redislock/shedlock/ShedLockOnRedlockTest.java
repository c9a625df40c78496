package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redlock.RedlockClient;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.TestConnections;

/** ShedLock's provider tests on Redlock over three masters. */
class ShedLockOnRedlockTest extends ShedLockProviderSuite {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    private List<RedisConnectionFactory> connections;

    @Override
    protected LockEngine newEngine(String keyPrefix) {
        this.connections = masters.connect(Duration.ofSeconds(5));
        return new RedlockClient(this.connections, keyPrefix, Duration.ofSeconds(30), LockLossListener.NONE);
    }

    @Override
    protected void closeStore() {
        this.connections.forEach(TestConnections::destroy);
    }
}
