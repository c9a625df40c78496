package io.github.redislock.zookeeper;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.ZooKeeperServer;

/** The ZooKeeper store proves the store contract on a real ZooKeeper server, one session per application. */
class ZooKeeperStoreContractTest extends LockStoreContract {

    private static ZooKeeperServer server;

    @BeforeAll
    static void startServer() {
        server = new ZooKeeperServer();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected StoreFixture fixture() {
        return new ZooKeeperStoreFixture(server);
    }
}
