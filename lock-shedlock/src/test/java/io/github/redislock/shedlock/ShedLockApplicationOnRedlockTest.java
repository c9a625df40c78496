package io.github.redislock.shedlock;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedlockMasters;

/** The ShedLock application's three instances on Redlock over three masters ({@code redis-lock.redlock.nodes}). */
class ShedLockApplicationOnRedlockTest extends ShedLockApplicationSuite {

    @RegisterExtension
    static final RedlockMasters masters = new RedlockMasters(3);

    /** Every instance of the test's application shares it; other tests' keys stay apart. */
    private final String keyPrefix = "redis-lock.key-prefix=" + UUID.randomUUID() + ":";

    @Override
    protected List<String> storeProperties() {
        return List.of("redis-lock.redlock.nodes=" + String.join(",", masters.all().stream().map(RedisServer::url)
            .toList()), this.keyPrefix);
    }

    @Override
    protected String storeDescription() {
        return "Redlock over 3 masters";
    }
}
