package io.github.redislock

import io.micrometer.observation.Observation
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.ThreadContextElement
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.runInterruptible
import kotlinx.coroutines.withContext

/**
 * The locks a coroutine holds, innermost first along [outer]: its element in the `CoroutineContext`, and the
 * owner of coroutine reentrancy. A locked suspend function runs with a new element (the lock it took, on top of
 * those it found); a nested locked call on keys an element of its context holds enters at once; any other
 * coroutine (whose context does not carry the element) waits like any other caller. Coroutines started inside
 * the locked work inherit the context, and so the locks: they are part of that work, and structured
 * concurrency ends them before it returns.
 *
 * As a `ThreadContextElement` it makes the locks `LockContext`'s while the coroutine runs on a thread,
 * whichever thread it resumes on, and puts the thread's own back when it suspends; for an observed lock, the
 * hold observation is the current observation there too, as it is around a thread's locked work.
 */
internal class CoroutineLocks(
    private val outer: CoroutineLocks?,
    /** The lock names this element took (without the key prefix), as the request named them. */
    private val keys: List<String>,
    private val handle: LockHandle,
    /** How this element's request shares its keys. */
    private val mode: LockMode = LockMode.WRITE,
    private val permits: Int = 1,
) : AbstractCoroutineContextElement(CoroutineLocks), ThreadContextElement<Any?> {

    companion object Key : CoroutineContext.Key<CoroutineLocks>

    /** Every lock of the coroutine, outermost first, as `LockContext.all()` lists them. */
    private val handles: List<LockHandle> = (outer?.handles ?: emptyList()) + handle

    /**
     * Whether this coroutine holds the named lock (and it is still held: a lost lock is not entered again) and may
     * enter it for a request of this mode and count, as a thread may: a write lock admits nested write and read
     * requests, a read lock nested reads, a permit nested permits of the same semaphore.
     * @throws LockException for a write request inside the coroutine's read lock on the key (an upgrade would wait
     * for that read lock forever) or another permit count than the one held
     */
    fun holds(key: String, mode: LockMode, permits: Int): Boolean {
        var element: CoroutineLocks? = this
        while (element != null) {
            if (key in element.keys && element.handle.isHeld) {
                if (element.permits != permits) {
                    throw LockException("Lock '$key' is held by this coroutine with ${element.permits} " +
                        "permit(s), but a nested request asks for $permits: every user of one key must ask for the " +
                        "same number of permits")
                }
                if (element.mode == LockMode.READ && mode == LockMode.WRITE) {
                    throw LockException("Lock '$key' is held by this coroutine as a read lock; a write lock on it " +
                        "now (an upgrade) would wait for that read lock forever, so it is refused: take the write " +
                        "lock from the start (a write lock admits nested read locks), or release the read lock first")
                }
                return true
            }
            element = element.outer
        }
        return false
    }

    override fun updateThreadContext(context: CoroutineContext): Any? {
        val previous = ThreadLocks.install(this.handles)
        val observed = this.handle as? ObservedLockHandle ?: return previous
        return Resumed(previous, observed.openHoldScope())
    }

    override fun restoreThreadContext(context: CoroutineContext, oldState: Any?) {
        if (oldState is Resumed) {
            oldState.scope.close()
            ThreadLocks.restore(oldState.previous)
        }
        else {
            ThreadLocks.restore(oldState)
        }
    }

    /** What a resume of an observed lock's coroutine changed on the thread: the lock stack, and the current observation. */
    private class Resumed(val previous: Any?, val scope: Observation.Scope)

    override fun toString(): String = "CoroutineLocks$handles"
}

/**
 * The one path of coroutine locking, for `@DistributedLock` on suspend functions and flows and for
 * `DistributedLockTemplate.withLock`: take the locks the coroutine does not hold yet (through the template, so
 * observed and logged like every lock), run the work with them in a [CoroutineLocks] element, release.
 *
 * Taking and releasing are Redis round trips that may wait, so they run on [blocking], a view of
 * `Dispatchers.IO` with threads of its own (not counted against the 64 of `Dispatchers.IO`, so waiters do not
 * starve the application's other IO work), never on the caller's dispatcher. A waiting caller occupies one of
 * its threads for the wait; beyond [WAITING_THREADS] waiting at once, callers queue for a thread before their
 * wait begins. Cancellation while waiting interrupts the waiting thread: the engine then leaves the
 * local line and the Redis queue, and anything taken meanwhile is released. Cancellation while holding ends
 * the work; the release runs regardless (`NonCancellable`). The engine sees a request that is not tied to a
 * thread ([LockRequest.nonReentrant]): the IO thread moves on at once, and reentrancy is the element's.
 */
internal object CoroutineLocking {

    /** See [blocking]. */
    const val WAITING_THREADS = 256

    /** Where the blocking acquire and release run. */
    @OptIn(ExperimentalCoroutinesApi::class)
    private val blocking: CoroutineDispatcher = Dispatchers.IO.limitedParallelism(WAITING_THREADS)

    /**
     * @param notAcquired what the call returns when its own lock stayed taken for the whole wait time
     * @param work runs with the element holding the locks; it installs it (`withContext`, `flowOn`)
     */
    suspend fun <T> locked(
        template: DistributedLockTemplate,
        request: LockRequest,
        notAcquired: suspend (LockNotAcquiredException) -> T,
        work: suspend (CoroutineLocks) -> T,
    ): T {
        val outer = currentCoroutineContext()[CoroutineLocks]
        val keys = request.keys()
        val missing = if (outer != null && request.isReentrant) {
            keys.filterNot { outer.holds(it, request.mode(), request.permits()) }
        } else {
            keys
        }
        if (missing.isEmpty()) {
            return work(outer!!)
        }
        val taken = if (missing.size == keys.size) request
            else LockRequest.of(missing, request.waitTime(), request.leaseTime()).holdAtLeast(request.holdAtLeast())
                .permits(request.permits()).mode(request.mode())
        val handle = try {
            acquire(template, taken.nonReentrant())
        } catch (failure: LockNotAcquiredException) {
            return notAcquired(failure)
        }
        val result = try {
            work(CoroutineLocks(outer, missing, handle, request.mode(), request.permits()))
        } catch (failure: Throwable) {
            (handle as? ObservedLockHandle)?.workFailed(failure)
            release(handle, failure)
            throw failure
        }
        if (!release(handle, null) && template.onLeaseLost == OnLeaseLost.THROW) {
            throw LockedCall.lost(handle)
        }
        return result
    }

    /** Takes the locks on an IO thread, interrupted when the caller is cancelled; nothing taken stays held. */
    private suspend fun acquire(template: DistributedLockTemplate, request: LockRequest): LockHandle {
        var taken: LockHandle? = null
        try {
            runInterruptible(blocking) {
                taken = template.acquire(request)
            }
            return taken!!
        } catch (failure: Throwable) {
            // Taken just as the caller was cancelled: withContext drops the result, so it is released here.
            taken?.let { release(it, failure) }
            // The engine reports an interrupted wait as a LockException: to the caller it is its cancellation.
            currentCoroutineContext().ensureActive()
            throw failure
        }
    }

    /** Releases off the caller's dispatcher, even when cancelled; false when the lock had been lost. */
    private suspend fun release(handle: LockHandle, failure: Throwable?): Boolean =
        withContext(NonCancellable + blocking) { LockedCall.release(handle, failure) }
}
