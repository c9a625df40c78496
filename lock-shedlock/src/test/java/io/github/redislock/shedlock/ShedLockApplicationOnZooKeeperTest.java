package io.github.redislock.shedlock;

import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.testsupport.ZooKeeperServerExtension;

/**
 * The ShedLock application's three instances on ZooKeeper ({@code redis-lock.zookeeper.connect-string}, with
 * {@code redis-lock-zookeeper} next to the starter): lockAtLeastFor is a node kept after the release.
 */
class ShedLockApplicationOnZooKeeperTest extends ShedLockApplicationSuite {

    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    /** Every instance of the test's application shares it; other tests' nodes stay apart. */
    private final String basePath = "redis-lock.zookeeper.base-path=/shedlock-" + UUID.randomUUID();

    @Override
    protected List<String> storeProperties() {
        return List.of("redis-lock.zookeeper.connect-string=" + zookeeper.server().connectString(),
                this.basePath);
    }

    @Override
    protected String storeDescription() {
        return "ZooKeeper ";
    }
}
