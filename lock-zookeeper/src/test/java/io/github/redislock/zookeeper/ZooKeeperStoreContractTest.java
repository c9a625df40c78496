package io.github.redislock.zookeeper;

import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.ZooKeeperServerExtension;

/** The ZooKeeper store proves the store contract on a real ZooKeeper server, one session per application. */
class ZooKeeperStoreContractTest extends LockStoreContract {

    @RegisterExtension
    static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    @Override
    protected StoreFixture fixture() {
        return new ZooKeeperStoreFixture(zookeeper.server());
    }
}
