package io.github.redislock.kotlin

import io.github.redislock.DistributedLockTemplate
import io.github.redislock.LockContext
import io.github.redislock.LockLossDetection
import io.github.redislock.LockLostEvent
import io.github.redislock.LockLostException
import io.github.redislock.LockNotAcquiredException
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration
import io.github.redislock.testsupport.ZooKeeperServer
import io.github.redislock.withLock
import io.github.redislock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.apache.curator.framework.CuratorFramework
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import org.springframework.context.ApplicationListener
import org.springframework.util.ClassUtils

/**
 * The coroutine lifecycle of [SuspendLockingTest] and [CoroutineLockLifecycleTest] on a real ZooKeeper server
 * (no Redis in these applications): `@DistributedLock` on suspend functions and on a `Flow`, and
 * `DistributedLockTemplate.withLock`, in two applications with coroutines on several dispatchers. What judges is
 * not the library: an overlap count, and the tests' own ZooKeeper client, which reads after every suspension that
 * the first lock node under the key is the handle's (its token, and the zxid that is its fencing token), and at
 * the end that no lock node is left. A cancelled holder or waiter deletes its node; an expired session is
 * signalled to a suspended holder.
 */
class ZooKeeperCoroutinesTest {

    companion object {

        private const val BASE_PATH = "/coroutine-locks"

        private lateinit var server: ZooKeeperServer

        private lateinit var client: CuratorFramework

        private lateinit var witness: ZooKeeperWitness

        private val single = Executors.newSingleThreadExecutor { Thread(it, "single-hop") }

        private val hop = single.asCoroutineDispatcher()

        @JvmStatic
        @BeforeAll
        fun startServer() {
            server = ZooKeeperServer()
            client = server.client(10_000)
            witness = ZooKeeperWitness(client, BASE_PATH)
        }

        @JvmStatic
        @AfterAll
        fun stopServer() {
            single.shutdownNow()
            client.close()
            server.close()
        }
    }

    private val sections = Sections()

    private val lost = CopyOnWriteArrayList<LockLostEvent>()

    @BeforeEach
    fun emptyBasePath() {
        if (client.checkExists().forPath(BASE_PATH) != null) {
            client.delete().deletingChildrenIfNeeded().forPath(BASE_PATH)
        }
    }

    private fun runner(): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration::class.java,
            ZooKeeperLockAutoConfiguration::class.java, LockEngineAutoConfiguration::class.java,
            RedisLockAutoConfiguration::class.java))
        .withPropertyValues("redis-lock.zookeeper.connect-string=" + server.connectString(),
            "redis-lock.zookeeper.base-path=$BASE_PATH", "redis-lock.zookeeper.session-timeout=4s",
            "redis-lock.zookeeper.connection-timeout=2s")
        .withBean(Stock::class.java, { Stock(sections, witness) })
        .withBean(Feed::class.java, { Feed(sections, witness) })
        .withBean(Inner::class.java)
        .withBean(Outer::class.java)
        .withBean("lossListener", ApplicationListener::class.java,
            { ApplicationListener<LockLostEvent> { lost += it } })

    private fun withApp(vararg properties: String, test: suspend kotlinx.coroutines.CoroutineScope.(ApplicationContext) -> Unit) {
        runner().withPropertyValues(*properties).run { app ->
            assertThat(app.getBean(DistributedLockTemplate::class.java)).isNotNull()
            assertThat(app.getBeansOfType(CuratorFramework::class.java)).hasSize(1)
            runBlocking { test(app) }
        }
    }

    private fun ApplicationContext.stock() = getBean(Stock::class.java)

    private fun ApplicationContext.template() = getBean(DistributedLockTemplate::class.java)

    @Test
    fun coroutinesOnSeveralDispatchersInTwoApplicationsNeverOverlap() {
        val calls = Workloads.reserveInTwoApplications(runner(), hop)
        assertThat(sections.entered()).isEqualTo(calls)
        assertThat(sections.maxInside()).isEqualTo(1)
        assertThat(witness.lockNodes()).isEmpty()
    }

    @Test
    fun withoutTheLockTheSameWorkloadOverlaps() {
        Workloads.reserveInTwoApplications(runner().withPropertyValues("redis-lock.enabled=false"), hop)
        assertThat(sections.maxInside()).isGreaterThan(1)
    }

    @Test
    fun aFlowHoldsTheLockForEachCollection() {
        val collections = Workloads.collectInTwoApplications(runner())
        assertThat(sections.entered()).isEqualTo(collections)
        assertThat(sections.maxInside()).isEqualTo(1)
        assertThat(witness.lockNodes()).isEmpty()
    }

    @Test
    fun aCollectorThatStopsEarlyDeletesTheNode() = withApp { app ->
        val feed = app.getBean(Feed::class.java)
        assertThat(feed.updates("2").take(1).toList()).containsExactly(0)
        assertThat(witness.lockNodes()).isEmpty()
        assertThat(feed.updatesIfFree("2").toList()).containsExactly(1)
    }

    @Test
    fun aShortSuspendJobKeepsItsNodeForHoldAtLeastAndALaterCallSkips() = withApp { app ->
        assertThat(app.stock().shortJob("report")).isEqualTo(1)
        // Kept by nobody until 30 s after it was taken: the node stays, and goes with its timer or its session.
        assertThat(witness.line("$BASE_PATH/job:report")).hasSize(1)
        assertThat(app.stock().shortJob("report")).isNull()
        assertThat(app.stock().ran.get()).isEqualTo(1)
    }

    @Test
    fun withLockInTwoApplicationsNeverOverlapsAndFencesIncrease() {
        val fences = CopyOnWriteArrayList<Long>()
        runner().run { first ->
            runner().run { second ->
                runBlocking {
                    val start = CompletableDeferred<Unit>()
                    for (app in listOf<ApplicationContext>(first, second)) {
                        repeat(4) { n ->
                            launch(if (n % 2 == 0) Dispatchers.Default else Dispatchers.IO) {
                                start.await()
                                repeat(5) {
                                    app.template().withLock("counter", Duration.ofSeconds(60)) {
                                        sections.enter()
                                        val lock = LockContext.current().orElseThrow()
                                        fences += lock.fencingToken()
                                        delay(1)
                                        withContext(hop) { witness.assertHolds(lock) }
                                        assertThat(LockContext.current()).containsSame(lock)
                                        sections.exit()
                                    }
                                }
                            }
                        }
                    }
                    start.complete(Unit)
                }
            }
        }
        assertThat(sections.entered()).isEqualTo(40)
        assertThat(sections.maxInside()).isEqualTo(1)
        // Appended inside the sections, which never overlapped: in the order the holders held the lock.
        assertThat(fences).hasSize(40).isSorted().doesNotHaveDuplicates()
        assertThat(witness.lockNodes()).isEmpty()
    }

    @Test
    fun cancellingAHolderDeletesItsNode() = withApp { app ->
        val entered = CompletableDeferred<String>()
        val holder = launch(Dispatchers.Default) { app.stock().holdUntilCancelled("11", entered) }
        val key = entered.await()
        assertThat(witness.line(key)).hasSize(1)
        holder.cancelAndJoin()
        afterCancellation { assertThat(witness.lockNodes()).isEmpty() }
        assertThat(app.stock().reserveOrThrow("11")).isEqualTo("reserved 11")
        assertThat(witness.lockNodes()).isEmpty()
    }

    @Test
    fun cancellingAWaiterDeletesItsNodeAndLeavesTheHolderInPlace() {
        runner().run { first ->
            runner().run { second ->
                runBlocking {
                    val entered = CompletableDeferred<String>()
                    val release = CompletableDeferred<Unit>()
                    val holder = launch(Dispatchers.Default) { first.stock().hold("12", entered, release) }
                    val key = entered.await()
                    val holderNode = witness.line(key).single()
                    // One waiter in the other application, one in the holder's: each waits with a node of its own.
                    val waiters = listOf(second, first).map { app ->
                        launch(Dispatchers.Default) { app.stock().reserveWaiting("12") }
                    }
                    await().atMost(Duration.ofSeconds(10)).until { witness.line(key).size == 3 }
                    waiters.forEach { it.cancelAndJoin() }
                    assertThat(waiters).allSatisfy { assertThat(it.isCancelled).isTrue() }
                    afterCancellation { assertThat(witness.line(key)).containsExactly(holderNode) }
                    release.complete(Unit)
                    holder.join()
                    assertThat(witness.lockNodes()).isEmpty()
                    assertThat(first.stock().ran.get() + second.stock().ran.get()).isZero()
                }
            }
        }
    }

    @Test
    fun aBusyLockSkipsFallsBackOrThrowsWhileAnotherCoroutineHolds() = withApp { app ->
        val entered = CompletableDeferred<String>()
        val release = CompletableDeferred<Unit>()
        val holder = launch(Dispatchers.Default) { app.stock().hold("7", entered, release) }
        entered.await()
        assertThat(app.stock().reserveIfFree("7")).isNull()
        assertThat(app.stock().reserveOrFallback("7")).isEqualTo("busy 7: [$BASE_PATH/sku:7:lock]")
        assertThatThrownBy { runBlocking { app.stock().reserveOrThrow("7") } }
            .isInstanceOf(LockNotAcquiredException::class.java)
        assertThat(app.stock().ran.get()).isZero()
        release.complete(Unit)
        holder.join()
        assertThat(app.stock().reserveIfFree("7")).isEqualTo(1)
        assertThat(witness.lockNodes()).isEmpty()
    }

    @Test
    fun aNestedLockedCallOnTheSameKeyEntersAtOnce() = withApp { app ->
        val fences = app.getBean(Outer::class.java).outer("13")
        assertThat(fences).hasSize(2)
        assertThat(fences[1]).isEqualTo(fences[0])
        assertThat(witness.lockNodes()).isEmpty()
    }

    @Test
    fun anExpiredSessionIsSignalledToASuspendedHolderAndThrowsWhenAsked() =
        withApp("redis-lock.on-lease-lost=throw") { app ->
            val release = CompletableDeferred<Unit>()
            val entered = CompletableDeferred<String>()
            val heldAtTheEnd = CompletableDeferred<Boolean>()
            val call = async(Dispatchers.Default) {
                runCatching {
                    app.template().withLock("report") {
                        entered.complete(LockContext.current().orElseThrow().key())
                        release.await()
                        heldAtTheEnd.complete(LockContext.current().orElseThrow().isHeld)
                    }
                }
            }
            val key = entered.await()
            server.expireSession(app.getBean(CuratorFramework::class.java))
            await().atMost(Duration.ofSeconds(10)).until { lost.any { it.key == key } }
            assertThat(lost.single { it.key == key }.detection).isEqualTo(LockLossDetection.SESSION)
            // The server deleted the node with the session: nothing is left, and another caller gets the lock.
            assertThat(witness.line(key)).isEmpty()
            release.complete(Unit)
            assertThat(call.await().exceptionOrNull()).isInstanceOf(LockLostException::class.java)
            assertThat(heldAtTheEnd.await()).isFalse()
            assertThat(app.template().withLock("report", Duration.ZERO) { LockContext.current().orElseThrow().isHeld })
                .isTrue()
            assertThat(witness.lockNodes()).isEmpty()
        }

    /** As in [SuspendLockingTest]: with kotlinx-coroutines-reactor the clean-up may finish after the caller resumed. */
    private fun afterCancellation(assertion: () -> Unit) {
        if (ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", null)) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(assertion)
        }
        else {
            assertion()
        }
    }
}
