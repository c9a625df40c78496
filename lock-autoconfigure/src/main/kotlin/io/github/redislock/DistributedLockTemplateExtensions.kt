@file:JvmName("DistributedLockTemplateExtensions")

package io.github.redislock

import java.time.Duration
import kotlinx.coroutines.withContext

/**
 * Runs [block] under the lock and returns its result, suspending (never blocking the caller's thread) while the
 * lock is busy: the coroutine counterpart of [DistributedLockTemplate.execute]. The lock is held from the first
 * instruction of [block] until it returns or throws, however often it suspends and wherever it resumes; inside,
 * `LockContext.current()` is this lock. Cancellation of the caller releases it (or, while waiting, gives up the
 * wait without leaving anything in Redis). A `null` wait time means `redis-lock.wait-time`, a `null` lease a
 * renewed one.
 *
 * Reentrancy belongs to the coroutine: a nested `withLock` (or locked suspend function) on a key the coroutine
 * holds enters at once; another coroutine waits.
 *
 * @throws LockNotAcquiredException if the lock stays taken for the whole wait time ([block] does not run)
 * @throws LockException if Redis fails while the lock is taken ([block] does not run)
 * @throws LockLostException if the lock was lost while [block] ran and `redis-lock.on-lease-lost` is `throw`
 */
suspend fun <T> DistributedLockTemplate.withLock(
    key: String,
    waitTime: Duration? = null,
    leaseTime: Duration? = null,
    block: suspend () -> T,
): T = withLock(request(key, waitTime, leaseTime), block)

/** Like [withLock] with a key, for every lock of the request. */
suspend fun <T> DistributedLockTemplate.withLock(request: LockRequest, block: suspend () -> T): T =
    CoroutineLocking.locked(this, request, { failure -> throw failure }) { locks -> withContext(locks) { block() } }
