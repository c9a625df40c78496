package io.github.redislock.kotlin

import io.github.redislock.LockHandle
import java.nio.charset.StandardCharsets
import org.apache.curator.framework.CuratorFramework
import org.apache.zookeeper.data.Stat
import org.assertj.core.api.Assertions.assertThat

/**
 * On ZooKeeper, through the tests' own client: the handle's key is the lock's parent node, and the lock is held
 * for the handle when the first node in sequence order holds the handle's token and was created in the
 * transaction whose zxid is the handle's fencing token.
 */
class ZooKeeperWitness(private val client: CuratorFramework, private val basePath: String) : StoreWitness {

    override fun assertHolds(lock: LockHandle) {
        val first = line(lock.key()).firstOrNull()
        assertThat(first).`as`("the first node under %s", lock.key()).isNotNull()
        val stat = Stat()
        val data = client.data.storingStatIn(stat).forPath(lock.key() + "/" + first)
        assertThat(String(data, StandardCharsets.UTF_8)).isEqualTo(lock.token())
        assertThat(stat.czxid).isEqualTo(lock.fencingToken())
    }

    /** The lock nodes under a key's parent, in sequence order (ZooKeeper's 10-digit suffix). */
    fun line(key: String): List<String> =
        if (client.checkExists().forPath(key) == null) listOf() else client.children.forPath(key).sortedBy { it.takeLast(10) }

    /** Every lock node under the base path, whatever its key (the instance registry left out). */
    fun lockNodes(): List<String> {
        if (client.checkExists().forPath(basePath) == null) {
            return listOf()
        }
        return client.children.forPath(basePath).filterNot { it == "~instances" }
            .flatMap { key -> line("$basePath/$key").map { "$basePath/$key/$it" } }
    }
}
