package io.github.redislock.kotlin

import io.github.redislock.LockContext
import io.github.redislock.LockHandle
import io.github.redislock.annotation.DistributedLock
import io.github.redislock.annotation.OnLockFailure
import io.github.redislock.redis.support.KeySlots
import io.github.redislock.testsupport.RedisServer
import io.github.redislock.testsupport.RedisServerExtension
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * `@DistributedLock(permits = 2)` on a Kotlin suspend function, on a real Redis server: at most two coroutines are
 * inside at once across two applications, however they suspend and hop dispatchers (counted by [Sections], not by
 * the library), and a coroutine suspended inside keeps its permit, renewed, for as long as it stays there (its
 * entry among the key's holders read from Redis by the test's own connection).
 */
class SuspendPermitsTest {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.shared()

        /** A dispatcher of one thread at a time, to hop to from the others. */
        @OptIn(ExperimentalCoroutinesApi::class)
        private val hop = Dispatchers.IO.limitedParallelism(1)
    }

    private val sections = Sections()

    @BeforeEach
    fun reset() {
        redis.flushAll()
    }

    private fun runner(): ApplicationContextRunner = KotlinLockContexts.runner(redis.server())
        .withBean(PartnerApi::class.java, { PartnerApi(sections, redis.server()) })

    @Test
    fun twoPermitsLetAtMostTwoCoroutinesInAcrossTwoApplications() {
        val calls = callInTwoApplications(runner())
        assertThat(sections.entered()).isEqualTo(calls)
        assertThat(sections.maxInside()).isEqualTo(2)
        assertThat(redis.command("EXISTS", KeySlots.holdersKey("partner:api"))).isEqualTo(0L)
    }

    @Test
    fun withoutTheLockTheSameWorkloadLetsMoreThanTwoIn() {
        callInTwoApplications(runner().withPropertyValues("redis-lock.enabled=false"))
        assertThat(sections.maxInside()).isGreaterThan(2)
    }

    @Test
    fun aSuspendedCoroutineKeepsItsPermitPastItsLease() {
        runner().withPropertyValues("redis-lock.lease-time=300ms").run { app ->
            runBlocking {
                val api = app.getBean(PartnerApi::class.java)
                val release = CompletableDeferred<Unit>()
                val entered = List(2) { CompletableDeferred<LockHandle>() }
                val holders = entered.map { launch(Dispatchers.Default) { api.hold(it, release) } }
                val permits = entered.map { it.await() }
                // Not synchronisation: the time under test. Three leases pass while both holders are suspended;
                // without renewal (every third of the lease) their entries would have expired twice over.
                delay(900)
                permits.forEach { assertHeldInRedis(redis.server(), it) }
                assertThat(api.callIfFree()).isNull()
                release.complete(Unit)
                holders.forEach { it.join() }
                assertThat(api.callIfFree()).isEqualTo(1)
            }
        }
        assertThat(sections.maxInside()).isEqualTo(2)
    }

    /** [Workloads.callInTwoApplications] of [PartnerApi.call]; returns how many calls were made. */
    private fun callInTwoApplications(runner: ApplicationContextRunner): Int =
        Workloads.callInTwoApplications(runner, hop) { app, other -> app.getBean(PartnerApi::class.java).call(other) }
}

/**
 * A partner's API that takes at most two calls at once across every instance. Inside, each call checks after its
 * suspensions that `LockContext` still names its permit and that Redis still holds it.
 */
open class PartnerApi(private val sections: Sections, private val redis: RedisServer) {

    @DistributedLock(key = ["partner:api"], permits = 2, waitTime = "60s")
    open suspend fun call(hop: CoroutineDispatcher) {
        sections.enter()
        try {
            val permit = LockContext.current().orElse(null)
            delay(1)
            withContext(hop) {
                yield()
                if (permit != null) {
                    assertThat(LockContext.current()).containsSame(permit)
                    assertHeldInRedis(redis, permit)
                }
            }
            delay(1)
        }
        finally {
            sections.exit()
        }
    }

    /** Holds a permit, suspended, until told to let go; says which once inside. */
    @DistributedLock(key = ["partner:api"], permits = 2, waitTime = "60s")
    open suspend fun hold(entered: CompletableDeferred<LockHandle>, release: CompletableDeferred<Unit>) {
        sections.enter()
        try {
            entered.complete(LockContext.current().orElseThrow())
            release.await()
        }
        finally {
            sections.exit()
        }
    }

    /** One attempt: null when both permits are taken. */
    @DistributedLock(key = ["partner:api"], permits = 2, waitTime = "0s", onFailure = OnLockFailure.SKIP)
    open suspend fun callIfFree(): Int? = 1
}

/** The permit is among its key's holders in Redis, with a lease that has not run out by Redis's clock. */
fun assertHeldInRedis(redis: RedisServer, permit: LockHandle) {
    val expires = redis.command("ZSCORE", KeySlots.holdersKey(permit.key()), permit.token())
    assertThat(expires).`as`("%s among the holders of %s", permit.token(), permit.key()).isNotNull()
    val time = redis.command("TIME") as List<*>
    val nowMillis = (time[0] as String).toLong() * 1000 + (time[1] as String).toLong() / 1000
    assertThat((expires as String).toDouble().toLong()).isGreaterThan(nowMillis)
}
