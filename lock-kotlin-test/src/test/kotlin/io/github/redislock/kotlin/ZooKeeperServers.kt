package io.github.redislock.kotlin

import io.github.redislock.LockHandle
import java.nio.charset.StandardCharsets
import java.nio.file.Files
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import org.apache.curator.framework.CuratorFramework
import org.apache.curator.framework.CuratorFrameworkFactory
import org.apache.curator.retry.RetryOneTime
import org.apache.curator.test.InstanceSpec
import org.apache.curator.test.TestingServer
import org.apache.zookeeper.Watcher
import org.apache.zookeeper.ZooKeeper
import org.apache.zookeeper.data.Stat
import org.assertj.core.api.Assertions.assertThat

/**
 * A real ZooKeeper server (curator-test runs the server code in this JVM) on a free loopback port, listening on
 * loopback only, with a short tick so that sessions may be short.
 */
class ZooKeeperTestServer : AutoCloseable {

    private val spec = InstanceSpec(Files.createTempDirectory("zk-coroutines").toFile(), InstanceSpec.getRandomPort(),
        -1, -1, true, 1, 500, 100, mapOf("clientPortAddress" to "127.0.0.1"), "127.0.0.1")

    private val server = TestingServer(spec, true)

    val connectString: String = "127.0.0.1:" + spec.port

    /** A started client of the tests' own, connected. */
    fun client(): CuratorFramework {
        val client = CuratorFrameworkFactory.builder().connectString(connectString).sessionTimeoutMs(10_000)
            .connectionTimeoutMs(2_000).retryPolicy(RetryOneTime(100)).build()
        client.start()
        check(client.blockUntilConnected(10, TimeUnit.SECONDS)) { "No connection to $connectString" }
        return client
    }

    /**
     * Ends the client's session on the server, as an expiry does: another connection joins the same session and
     * closes it, so the server deletes the session's ephemeral nodes and the client is told its session expired.
     */
    fun expireSession(client: CuratorFramework) {
        val zk = client.zookeeperClient.zooKeeper
        val connected = CountDownLatch(1)
        val twin = ZooKeeper(connectString, 10_000, { event ->
            if (event.state == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown()
            }
        }, zk.sessionId, zk.sessionPasswd)
        try {
            check(connected.await(10, TimeUnit.SECONDS)) { "The twin connection did not connect" }
        }
        finally {
            twin.close()
        }
    }

    override fun close() {
        server.close()
    }
}

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
