package io.github.redislock.redis;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.github.redislock.storekit.LockStoreContract;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;

/**
 * The single-Redis store proves the store contract on a Redis Cluster of three masters (Lettuce, Boot's default
 * client; Jedis on a cluster is in {@code ClusterLockTest}).
 */
class RedisClusterStoreContractTest extends LockStoreContract {

    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    @Override
    protected StoreFixture fixture() {
        return RedisStoreFixture.cluster(cluster, ClientLibrary.LETTUCE);
    }
}
