package io.github.redislock.shedlock;

import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.testsupport.ZooKeeperServerExtension;
import io.github.redislock.zookeeper.ZooKeeperLockStore;

/**
 * ShedLock's provider tests on ZooKeeper: a fixed lockAtMostFor is the store's timer in the holder's application,
 * lockAtLeastFor a node kept after the release.
 */
class ShedLockOnZooKeeperTest extends ShedLockProviderSuite {

    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    private CuratorFramework client;

    @Override
    protected LockEngine newEngine(String keyPrefix) {
        this.client = zookeeper.server().client(10_000);
        String basePath = "/" + keyPrefix.substring(0, keyPrefix.length() - 1);
        return new LockEngine(new ZooKeeperLockStore(this.client, basePath, Duration.ofSeconds(5)),
                Duration.ofSeconds(30), LockLossListener.NONE);
    }

    @Override
    protected void closeStore() {
        this.client.close();
    }
}
