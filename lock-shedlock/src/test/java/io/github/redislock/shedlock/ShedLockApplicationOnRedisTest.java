package io.github.redislock.shedlock;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.testsupport.RedisServerExtension;

/** The ShedLock application's three instances on one Redis ({@code spring.data.redis.url}). */
class ShedLockApplicationOnRedisTest extends ShedLockApplicationSuite {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    /** Every instance of the test's application shares it; other tests' keys stay apart. */
    private final String keyPrefix = "redis-lock.key-prefix=" + UUID.randomUUID() + ":";

    @Override
    protected List<String> storeProperties() {
        return List.of("spring.data.redis.url=" + redis.url(), "spring.data.redis.lettuce.pool.enabled=false",
                this.keyPrefix);
    }

    @Override
    protected String storeDescription() {
        return "Redis standalone";
    }
}
