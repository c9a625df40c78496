package io.github.redislock.kotlin

import io.github.redislock.DistributedLockTemplate
import io.github.redislock.LockContext
import io.github.redislock.LockException
import io.github.redislock.LockMode
import io.github.redislock.LockRequest
import io.github.redislock.LockLostEvent
import io.github.redislock.LockLostException
import io.github.redislock.LockNotAcquiredException
import io.github.redislock.actuate.RedisLocksEndpoint
import io.github.redislock.engine.LockEngine
import io.github.redislock.testsupport.RedisServerExtension
import io.github.redislock.testsupport.SilenceMeter
import io.github.redislock.withLock
import io.micrometer.observation.Observation
import io.micrometer.observation.ObservationRegistry
import io.micrometer.observation.tck.TestObservationRegistry
import io.micrometer.observation.tck.TestObservationRegistryAssert
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.actuate.endpoint.Show
import org.springframework.context.ApplicationContext
import org.springframework.context.ApplicationListener

/**
 * A coroutine's lock is the engine's like any other: renewed while the coroutine is suspended, lost and signalled
 * like a thread's, listed by the endpoint, observed; and `DistributedLockTemplate.withLock`, the programmatic way
 * in, takes the same path as the annotation.
 */
class CoroutineLockLifecycleTest {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.shared()
    }

    private val lost = CopyOnWriteArrayList<LockLostEvent>()

    private val observations = TestObservationRegistry.create()

    @BeforeEach
    fun reset() {
        redis.flushAll()
    }

    private fun run(vararg properties: String, test: suspend kotlinx.coroutines.CoroutineScope.(ApplicationContext) -> Unit) {
        KotlinLockContexts.runner(redis.server())
            .withPropertyValues(*properties)
            .withBean(ObservationRegistry::class.java, { observations })
            .withBean("lossListener", ApplicationListener::class.java,
                { ApplicationListener<LockLostEvent> { lost += it } })
            .run { app -> runBlocking { test(app.getBean(DistributedLockTemplate::class.java).let { app }) } }
    }

    private fun ApplicationContext.template() = getBean(DistributedLockTemplate::class.java)

    /**
     * Three leases pass while the holder is suspended, and its key is still its own. A loaded machine may take the lock
     * away as designed: when this JVM or Redis stood still for a renewal period or more (the [SilenceMeter] saw it; a
     * renewal then could not be answered in time); the loss must then be told. A loss without such a silence fails.
     */
    @Test
    fun aSuspendedHolderKeepsItsLockRenewed() = run("redis-lock.lease-time=300ms") { app ->
        SilenceMeter.start(redis.server()).use { silences ->
            val start = System.nanoTime()
            val release = CompletableDeferred<Unit>()
            val entered = CompletableDeferred<Pair<String, String>>()
            val holder = launch(Dispatchers.Default) {
                app.template().withLock("report") {
                    val lock = LockContext.current().orElseThrow()
                    entered.complete(lock.key() to lock.token())
                    release.await()
                }
            }
            val (key, value) = entered.await()
            // Not synchronisation: the time under test. Three leases pass while the holder is suspended; without
            // renewal (every third of the lease) the key would have expired twice over.
            delay(900)
            val found = redis.command("GET", key)
            if (found != value) {
                await().atMost(Duration.ofSeconds(10)).until { lost.any { it.key == key } }
            }
            release.complete(Unit)
            holder.join()
            val end = System.nanoTime()
            assertThat(redis.command("EXISTS", key)).isEqualTo(0L)
            if (lost.isNotEmpty()) {
                assertThat(silences.longestWithin(start, end))
                    .`as`("lost (the key held %s after three leases) with no silence of a renewal period", found)
                    .isGreaterThanOrEqualTo(app.getBean(LockEngine::class.java).renewalPeriod())
                assertThat(lost).`as`("the loss is told once").singleElement()
                    .satisfies({ assertThat(it.token).isEqualTo(value) })
            }
        }
    }

    @Test
    fun aLostLockIsSignalledAndThrowsWhenAsked() =
        run("redis-lock.lease-time=300ms", "redis-lock.on-lease-lost=throw") { app ->
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
            redis.command("DEL", key)
            await().atMost(Duration.ofSeconds(5)).until { lost.any { it.key == key } }
            release.complete(Unit)
            assertThat(call.await().exceptionOrNull()).isInstanceOf(LockLostException::class.java)
            assertThat(heldAtTheEnd.await()).isFalse()
        }

    @Test
    fun theEndpointListsACoroutinesLock() = run { app ->
        val release = CompletableDeferred<Unit>()
        val entered = CompletableDeferred<Long>()
        val holder = launch(Dispatchers.Default) {
            app.template().withLock("report") {
                entered.complete(LockContext.current().orElseThrow().fencingToken())
                release.await()
            }
        }
        val fence = entered.await()
        // Keys shown: the endpoint masks them unless told otherwise (management.endpoint.redislocks.show-keys).
        val held = RedisLocksEndpoint(app.getBean(LockEngine::class.java), Show.ALWAYS, setOf()).locks().held()
        assertThat(held).singleElement().satisfies({ assertThat(it.key()).isEqualTo("report") },
            { assertThat(it.fencingToken()).isEqualTo(fence) })
        release.complete(Unit)
        holder.join()
    }

    @Test
    fun aCoroutinesLockIsObservedLikeAThreads() = run { app ->
        val current = app.template().withLock("report") {
            val before = currentObservationName()
            delay(1)
            withContext(Dispatchers.IO) { listOf(before, currentObservationName()) }
        }
        // The hold observation is the current one inside the work, also after resuming on another thread.
        assertThat(current).containsExactly("redis.lock.hold", "redis.lock.hold")
        assertThat(observations.currentObservation).isNull()
        TestObservationRegistryAssert.assertThat(observations).hasNumberOfObservationsEqualTo(3)
        TestObservationRegistryAssert.assertThat(observations).hasObservationWithNameEqualTo("redis.lock.acquire")
            .that().hasLowCardinalityKeyValue("outcome", "acquired").hasBeenStopped()
        TestObservationRegistryAssert.assertThat(observations).hasObservationWithNameEqualTo("redis.lock.hold")
            .that().hasLowCardinalityKeyValue("outcome", "released").hasBeenStopped()
        TestObservationRegistryAssert.assertThat(observations).hasObservationWithNameEqualTo("redis.lock.release")
            .that().hasBeenStopped()
    }

    /** Typed so on every Boot line (Micrometer's nullability annotations differ between them). */
    private fun currentObservationName(): String? {
        val current: Observation? = observations.currentObservation
        return current?.let { it.context.name }
    }

    @Test
    fun withLockIsReentrantForTheCoroutineOnly() = run { app ->
        val template = app.template()
        val fences = template.withLock("job") {
            val outer = LockContext.current().orElseThrow().fencingToken()
            withContext(Dispatchers.IO) {
                listOf(outer, template.withLock("job", Duration.ZERO) { LockContext.current().orElseThrow().fencingToken() })
            }
        }
        assertThat(fences[1]).isEqualTo(fences[0])
        // A coroutine started inside the locked work is part of it: it inherits the lock.
        val child = template.withLock("job") {
            val outer = LockContext.current().orElseThrow().fencingToken()
            coroutineScope {
                async(Dispatchers.Default) {
                    listOf(outer, template.withLock("job", Duration.ZERO) { LockContext.current().orElseThrow().fencingToken() })
                }.await()
            }
        }
        assertThat(child[1]).isEqualTo(child[0])
        val release = CompletableDeferred<Unit>()
        val entered = CompletableDeferred<Unit>()
        val holder = launch { template.withLock("job") { entered.complete(Unit); release.await() } }
        entered.await()
        assertThatThrownBy { runBlocking { template.withLock("job", Duration.ZERO) { } } }
            .isInstanceOf(LockNotAcquiredException::class.java)
        release.complete(Unit)
        holder.join()
        assertThat(LockContext.current()).isEmpty()
    }

    @Test
    fun aCoroutineEntersWhatItHoldsByTheRuleOfThreads() = run { app ->
        val template = app.template()
        fun read(key: String) = LockRequest.of(key, Duration.ZERO, null).mode(LockMode.READ)
        // A read lock inside the coroutine's write lock enters it: same fence, no store call.
        val fences = template.withLock("doc") {
            val outer = LockContext.current().orElseThrow().fencingToken()
            listOf(outer, template.withLock(read("doc")) { LockContext.current().orElseThrow().fencingToken() })
        }
        assertThat(fences[1]).isEqualTo(fences[0])
        // A write lock inside its own read lock (an upgrade) is refused at once, and the read lock stays.
        template.withLock(read("doc")) {
            val upgrade = runCatching { template.withLock("doc", Duration.ofSeconds(30)) { } }.exceptionOrNull()
            assertThat(upgrade).isInstanceOf(LockException::class.java).hasMessageContaining("upgrade")
            assertThat(LockContext.current().orElseThrow().isHeld).isTrue()
        }
        // Another permit count than the one held is refused, naming both.
        template.withLock(LockRequest.of("pool", Duration.ZERO, null).permits(3)) {
            val otherCount = runCatching {
                template.withLock(LockRequest.of("pool", Duration.ZERO, null).permits(2)) { }
            }.exceptionOrNull()
            assertThat(otherCount).isInstanceOf(LockException::class.java).hasMessageContaining("3 permit")
                .hasMessageContaining("asks for 2")
        }
        assertThat(LockContext.current()).isEmpty()
    }

    @Test
    fun withLockOnTwoApplicationsNeverOverlaps() {
        val sections = Sections()
        val runner = KotlinLockContexts.runner(redis.server())
        runner.run { first ->
            runner.run { second ->
                runBlocking {
                    val start = CompletableDeferred<Unit>()
                    for (app in listOf<ApplicationContext>(first, second)) {
                        repeat(6) { n ->
                            launch(if (n % 2 == 0) Dispatchers.Default else Dispatchers.IO) {
                                start.await()
                                repeat(5) {
                                    app.template().withLock("counter", Duration.ofSeconds(60)) {
                                        sections.enter()
                                        delay(1)
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
        assertThat(sections.entered()).isEqualTo(60)
        assertThat(sections.maxInside()).isEqualTo(1)
    }
}
