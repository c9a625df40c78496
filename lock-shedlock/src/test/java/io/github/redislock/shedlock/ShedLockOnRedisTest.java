package io.github.redislock.shedlock;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.TestConnections;

/** ShedLock's provider tests on one Redis. */
class ShedLockOnRedisTest extends ShedLockProviderSuite {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private LettuceConnectionFactory connections;

    @Override
    protected LockEngine newEngine(String keyPrefix) {
        this.connections = TestConnections.lettuce(redis.server(), Duration.ofSeconds(5));
        return new RedisLockClient(this.connections, keyPrefix);
    }

    @Override
    protected void closeStore() {
        TestConnections.destroy(this.connections);
    }
}
