package io.github.redislock.kotlin

import io.github.redislock.InvalidLockDefinitionException
import io.github.redislock.LockNotAcquiredException
import io.github.redislock.testsupport.RedisServerExtension
import java.time.Duration
import java.util.concurrent.Executors
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.context.ApplicationContext
import org.springframework.util.ClassUtils

/**
 * `@DistributedLock` on Kotlin suspend functions and on functions returning a `Flow`, on a real Redis server: the
 * lock is held across suspensions and dispatcher hops (an overlap count and the key in Redis say so, not the
 * library), busy locks skip, fall back or throw, cancellation leaves nothing in Redis, reentrancy follows the
 * coroutine. The suite runs with and without kotlinx-coroutines-reactor (see the module's POM), the two ways
 * Spring AOP calls a suspend function.
 */
class SuspendLockingTest {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.shared()

        private val single = Executors.newSingleThreadExecutor { Thread(it, "single-hop") }

        private val hop = single.asCoroutineDispatcher()

        @JvmStatic
        @AfterAll
        fun stopHop() {
            single.shutdownNow()
        }
    }

    private val sections = Sections()

    @BeforeEach
    fun reset() {
        redis.flushAll()
    }

    private fun runner(): ApplicationContextRunner = KotlinLockContexts.runner(redis.server())
        .withBean(Stock::class.java, { Stock(sections, RedisWitness(redis.server())) })
        .withBean(Feed::class.java, { Feed(sections, RedisWitness(redis.server())) })
        .withBean(Inner::class.java)
        .withBean(Outer::class.java)

    /** The keys locks left, without the applications' instance registry entries. */
    private fun keys(): List<*> = (redis.command("KEYS", "*") as List<*>).filterNot { (it as String).contains("~lock~instance:") }

    @Test
    fun runsWithTheExpectedSpringAdapter() {
        val expected = System.getProperty("expect.coroutines-reactor")?.toBoolean() ?: true
        assertThat(ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", null)).isEqualTo(expected)
    }

    @Test
    fun coroutinesOnSeveralDispatchersInTwoApplicationsNeverOverlap() {
        val calls = Workloads.reserveInTwoApplications(runner(), hop)
        assertThat(sections.entered()).isEqualTo(calls)
        assertThat(sections.maxInside()).isEqualTo(1)
        assertThat(keys()).isEmpty()
    }

    @Test
    fun withoutTheLockTheSameWorkloadOverlaps() {
        Workloads.reserveInTwoApplications(runner().withPropertyValues("redis-lock.enabled=false"), hop)
        assertThat(sections.maxInside()).isGreaterThan(1)
    }

    @Test
    fun skipReturnsNullWithoutRunningTheBodyWhileAnotherCoroutineHolds() = withStock { stock ->
        val entered = CompletableDeferred<String>()
        val release = CompletableDeferred<Unit>()
        val holder = launch(Dispatchers.Default) { stock.hold("7", entered, release) }
        entered.await()
        assertThat(stock.reserveIfFree("7")).isNull()
        assertThat(stock.ran.get()).isZero()
        release.complete(Unit)
        holder.join()
        assertThat(stock.reserveIfFree("7")).isEqualTo(1)
        assertThat(keys()).isEmpty()
    }

    @Test
    fun aSuspendingFallbackAnswersWhileAnotherCoroutineHolds() = withStock { stock ->
        val entered = CompletableDeferred<String>()
        val release = CompletableDeferred<Unit>()
        val holder = launch(Dispatchers.Default) { stock.hold("8", entered, release) }
        entered.await()
        assertThat(stock.reserveOrFallback("8")).isEqualTo("busy 8: [sku:8:lock]")
        assertThat(stock.ran.get()).isZero()
        release.complete(Unit)
        holder.join()
        assertThat(stock.reserveOrFallback("8")).isEqualTo("reserved 8")
    }

    @Test
    fun aBusyLockThrowsLockNotAcquired() = withStock { stock ->
        val entered = CompletableDeferred<String>()
        val release = CompletableDeferred<Unit>()
        // On this coroutine's own thread: the lock belongs to the holding coroutine, not to the thread.
        val holder = launch { stock.hold("9", entered, release) }
        entered.await()
        assertThatThrownBy { runBlocking { stock.reserveOrThrow("9") } }
            .isInstanceOf(LockNotAcquiredException::class.java)
        assertThat(stock.ran.get()).isZero()
        release.complete(Unit)
        holder.join()
    }

    @Test
    fun aShortSuspendJobKeepsItsLockForHoldAtLeastAndALaterCallSkips() = withStock { stock ->
        assertThat(stock.shortJob("report")).isEqualTo(1)
        // Kept by nobody until 30 s after it was taken: the value no holder has, the rest of the minimum as its TTL.
        assertThat(redis.command("GET", "job:report")).asString().startsWith("~kept:")
        assertThat(redis.command("PTTL", "job:report") as Long).isBetween(20_000L, 30_000L)
        assertThat(stock.shortJob("report")).isNull()
        assertThat(stock.ran.get()).isEqualTo(1)
    }

    @Test
    fun anExceptionAfterASuspensionReachesTheCallerAndReleases() = withStock { stock ->
        assertThatThrownBy { runBlocking { stock.failAfterSuspending("10", hop) } }
            .isInstanceOf(IllegalStateException::class.java).hasMessage("sold out")
        assertThat(keys()).isEmpty()
    }

    @Test
    fun cancellingAHolderReleasesAtOnce() = withStock { stock ->
        val entered = CompletableDeferred<String>()
        val holder = launch(Dispatchers.Default) { stock.holdUntilCancelled("11", entered) }
        val key = entered.await()
        assertThat(redis.command("EXISTS", key)).isEqualTo(1L)
        holder.cancelAndJoin()
        afterCancellation { assertThat(keys()).isEmpty() }
        assertThat(stock.reserveOrThrow("11")).isEqualTo("reserved 11")
    }

    @Test
    fun cancellingAWaiterLeavesNoQueueEntry() {
        runner().run { first ->
            runner().run { second ->
                val waiting = second.getBean(Stock::class.java)
                runBlocking {
                    val entered = CompletableDeferred<String>()
                    val release = CompletableDeferred<Unit>()
                    val holder = launch(Dispatchers.Default) {
                        first.getBean(Stock::class.java).hold("12", entered, release)
                    }
                    val key = entered.await()
                    val waiter = launch(Dispatchers.Default) { waiting.reserveWaiting("12") }
                    // The other application queued in Redis for the key: companion keys next to the lock's.
                    await().atMost(Duration.ofSeconds(10)).until { keys().size > 1 }
                    waiter.cancelAndJoin()
                    assertThat(waiter.isCancelled).isTrue()
                    // The engine leaves the Redis queue on its own executor once the waiting thread gave up (so an
                    // interrupted thread makes no round trip): awaited, bounded, whatever the adapter.
                    await().atMost(Duration.ofSeconds(5)).untilAsserted { assertThat(keys()).containsExactly(key) }
                    release.complete(Unit)
                    holder.join()
                    assertThat(keys()).isEmpty()
                    assertThat(waiting.ran.get()).isZero()
                }
            }
        }
    }

    @Test
    fun aNestedLockedCallOnTheSameKeyEntersAtOnce() = withContext { app ->
        val fences = app.getBean(Outer::class.java).outer("13")
        assertThat(fences).hasSize(2)
        assertThat(fences[1]).isEqualTo(fences[0])
        assertThat(keys()).isEmpty()
    }

    @Test
    fun anotherCoroutineOnTheSameThreadIsNotLetIn() = withContext { app ->
        val entered = CompletableDeferred<String>()
        val release = CompletableDeferred<Unit>()
        val holder = launch { app.getBean(Stock::class.java).hold("14", entered, release) }
        entered.await()
        // A sibling coroutine, not started inside the locked work: it does not carry the holder's locks.
        assertThatThrownBy { runBlocking { app.getBean(Inner::class.java).inner("14") } }
            .isInstanceOf(LockNotAcquiredException::class.java)
        // Nor a coroutine launched beside it in the same scope.
        coroutineScope {
            launch {
                assertThatThrownBy { runBlocking { app.getBean(Inner::class.java).inner("14") } }
                    .isInstanceOf(LockNotAcquiredException::class.java)
            }
        }
        release.complete(Unit)
        holder.join()
    }

    @Test
    fun lockContextFollowsTheCoroutineAcrossThreads() = withStock { stock ->
        val seen = stock.whereAmI("15", hop)
        // Thread names may carry the coroutine's name (" @coroutine#n") when assertions are on.
        val threads = seen.map { it.first.substringBefore(" @") }
        assertThat(threads).contains("single-hop")
        assertThat(threads.toSet()).hasSizeGreaterThan(1)
        assertThat(seen.map { it.second }.toSet()).hasSize(1).doesNotContainNull()
        assertThat(io.github.redislock.LockContext.current()).isEmpty()
    }

    @Test
    fun aFlowHoldsTheLockForEachCollection() {
        val collections = Workloads.collectInTwoApplications(runner())
        assertThat(sections.entered()).isEqualTo(collections)
        assertThat(sections.maxInside()).isEqualTo(1)
        assertThat(keys()).isEmpty()
    }

    @Test
    fun aCollectorThatStopsEarlyReleases() = withContext { app ->
        val feed = app.getBean(Feed::class.java)
        assertThat(feed.updates("2").take(1).toList()).containsExactly(0)
        assertThat(keys()).isEmpty()
        assertThat(feed.updatesIfFree("2").toList()).containsExactly(1)
    }

    @Test
    fun aSkippedFlowIsEmpty() = withContext { app ->
        val entered = CompletableDeferred<String>()
        val release = CompletableDeferred<Unit>()
        val holder = launch(Dispatchers.Default) {
            app.getBean(Feed::class.java).updates("3").collect {
                entered.complete("in")
                release.await()
            }
        }
        entered.await()
        assertThat(app.getBean(Feed::class.java).updatesIfFree("3").toList()).isEmpty()
        release.complete(Unit)
        holder.join()
    }

    @Test
    fun aSuspendFunctionReturningAFlowFailsTheStartUp() {
        KotlinLockContexts.runner(redis.server()).withBean(SuspendingFeed::class.java).run { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).rootCause().isInstanceOf(InvalidLockDefinitionException::class.java)
                .hasMessageContaining("SuspendingFeed#updates").hasMessageContaining("Flow")
        }
    }

    @Test
    fun aSuspendFunctionReturningAFutureFailsTheStartUp() {
        KotlinLockContexts.runner(redis.server()).withBean(SuspendingFuture::class.java).run { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).rootCause().isInstanceOf(InvalidLockDefinitionException::class.java)
                .hasMessageContaining("SuspendingFuture#start").hasMessageContaining("CompletableFuture")
        }
    }

    @Test
    fun skipOnANonNullableSuspendFunctionFailsTheStartUp() {
        KotlinLockContexts.runner(redis.server()).withBean(NonNullSkip::class.java).run { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).rootCause().isInstanceOf(InvalidLockDefinitionException::class.java)
                .hasMessageContaining("NonNullSkip#count").hasMessageContaining("nullable")
        }
    }

    /**
     * What must hold once a cancelled call has been cleaned up. Without kotlinx-coroutines-reactor the cancelled
     * caller resumes after the clean-up (the release, or leaving the wait), so it holds at once. With it, Spring's
     * proxy awaits the locked call as a Mono and resumes a cancelled caller as soon as it cancels that Mono; the
     * clean-up finishes on its own, within a Redis round trip or two, so it is awaited (bounded).
     */
    private fun afterCancellation(assertion: () -> Unit) {
        if (ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", null)) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(assertion)
        }
        else {
            assertion()
        }
    }

    private fun withStock(test: suspend kotlinx.coroutines.CoroutineScope.(Stock) -> Unit) =
        withContext { app -> test(app.getBean(Stock::class.java)) }

    private fun withContext(test: suspend kotlinx.coroutines.CoroutineScope.(ApplicationContext) -> Unit) {
        runner().run { app -> runBlocking { test(app) } }
    }
}
