package io.github.redislock.kotlin

import io.github.redislock.LockContext
import io.github.redislock.LockNotAcquiredException
import io.github.redislock.annotation.DistributedLock
import io.github.redislock.annotation.OnLockFailure
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat

/**
 * Locked suspend functions as a Kotlin service declares them (open: Spring subclasses it for the proxy). Inside a
 * section each checks, after its suspensions, that `LockContext` still names its lock and that the store holds
 * that lock for it (read by the witness's own connection, not the library's).
 */
open class Stock(private val sections: Sections, private val store: StoreWitness) {

    /** Calls that got into the body of [reserveIfFree], [reserveOrFallback] and [reserveWaiting]. */
    open val ran = AtomicInteger()

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "60s")
    open suspend fun reserve(id: String, hop: CoroutineDispatcher): Int {
        sections.enter()
        try {
            val lock = LockContext.current().orElse(null)
            delay(1)
            withContext(hop) {
                yield()
                if (lock != null) {
                    assertThat(LockContext.current()).containsSame(lock)
                    store.assertHolds(lock)
                }
            }
            delay(1)
            if (lock != null) {
                assertThat(LockContext.current()).containsSame(lock)
            }
            return 1
        }
        finally {
            sections.exit()
        }
    }

    /** Holds the lock until told to let go, saying which key it holds once inside. */
    @DistributedLock(key = ["sku:#id:lock"], waitTime = "60s")
    open suspend fun hold(id: String, entered: CompletableDeferred<String>, release: CompletableDeferred<Unit>) {
        entered.complete(LockContext.current().orElseThrow().key())
        release.await()
    }

    /** Holds the lock until cancelled. */
    @DistributedLock(key = ["sku:#id:lock"], waitTime = "60s")
    open suspend fun holdUntilCancelled(id: String, entered: CompletableDeferred<String>) {
        entered.complete(LockContext.current().orElseThrow().key())
        awaitCancellation()
    }

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "0s", onFailure = OnLockFailure.SKIP)
    open suspend fun reserveIfFree(id: String): Int? {
        ran.incrementAndGet()
        delay(1)
        return 1
    }

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "0s", fallbackMethod = "busy")
    open suspend fun reserveOrFallback(id: String): String {
        ran.incrementAndGet()
        delay(1)
        return "reserved $id"
    }

    /** The fallback, a suspend function itself. */
    open suspend fun busy(id: String, failure: LockNotAcquiredException): String {
        delay(1)
        return "busy $id: ${failure.keys}"
    }

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "0s")
    open suspend fun reserveOrThrow(id: String): String {
        ran.incrementAndGet()
        return "reserved $id"
    }

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "60s")
    open suspend fun reserveWaiting(id: String): String {
        ran.incrementAndGet()
        return "reserved $id"
    }

    @DistributedLock(key = ["sku:#id:lock"])
    open suspend fun failAfterSuspending(id: String, hop: CoroutineDispatcher): Int {
        delay(1)
        withContext(hop) { yield() }
        throw IllegalStateException("sold out")
    }

    /** A scheduled job's shape: skip when taken, and keep the lock for a while after a short run (holdAtLeast). */
    @DistributedLock(key = ["job:#id"], waitTime = "0s", onFailure = OnLockFailure.SKIP, holdAtLeast = "30s")
    open suspend fun shortJob(id: String): Int? {
        ran.incrementAndGet()
        delay(1)
        return 1
    }

    /** The threads the body ran on, before and after its suspensions, with the lock `LockContext` showed on each. */
    @DistributedLock(key = ["sku:#id:lock"])
    open suspend fun whereAmI(id: String, hop: CoroutineDispatcher): List<Pair<String, Long?>> {
        val seen = mutableListOf<Pair<String, Long?>>()
        fun look() {
            seen += Thread.currentThread().name to LockContext.current().map { it.fencingToken() }.orElse(null)
        }
        look()
        withContext(hop) { look() }
        delay(5)
        look()
        return seen
    }
}

/** A locked suspend function that calls another on the same key. */
open class Outer(private val inner: Inner) {

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "0s")
    open suspend fun outer(id: String): List<Long> {
        val mine = LockContext.current().orElseThrow().fencingToken()
        delay(1)
        return listOf(mine, inner.inner(id))
    }
}

open class Inner {

    /** Waits for nothing: a nested call that did not enter at once would fail. */
    @DistributedLock(key = ["sku:#id:lock"], waitTime = "0s")
    open suspend fun inner(id: String): Long {
        delay(1)
        return LockContext.current().orElseThrow().fencingToken()
    }
}

/** A locked function returning a `Flow`: the lock spans each collection. */
open class Feed(private val sections: Sections, private val store: StoreWitness) {

    @DistributedLock(key = ["feed:#id:lock"], waitTime = "60s")
    open fun updates(id: String): Flow<Int> = flow {
        sections.enter()
        try {
            repeat(3) {
                delay(1)
                val lock = LockContext.current().orElse(null)
                if (lock != null) {
                    store.assertHolds(lock)
                }
                emit(it)
            }
        }
        finally {
            sections.exit()
        }
    }

    @DistributedLock(key = ["feed:#id:lock"], waitTime = "0s", onFailure = OnLockFailure.SKIP)
    open fun updatesIfFree(id: String): Flow<Int> = flow { emit(1) }
}

/** A suspend function returning a Flow cannot be locked for its whole work: the start-up fails. */
open class SuspendingFeed {

    @DistributedLock(key = ["feed:#id:lock"])
    open suspend fun updates(id: String): Flow<Int> = flow { emit(1) }
}

/** Nor one returning a future, whose work goes on after it returned. */
open class SuspendingFuture {

    @DistributedLock(key = ["job:#id:lock"])
    open suspend fun start(id: String): java.util.concurrent.CompletableFuture<Int> =
        java.util.concurrent.CompletableFuture.completedFuture(1)
}

/** SKIP would return null from a function whose return type says it never does: the start-up fails. */
open class NonNullSkip {

    @DistributedLock(key = ["sku:#id:lock"], onFailure = OnLockFailure.SKIP)
    open suspend fun count(id: String): Int = 1
}
