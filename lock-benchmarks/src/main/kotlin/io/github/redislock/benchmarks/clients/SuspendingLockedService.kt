package io.github.redislock.benchmarks.clients

import io.github.redislock.annotation.DistributedLock
import kotlinx.coroutines.runBlocking

/**
 * The `suspend` twin of [LockedService]: the same annotation, a body that does nothing (it does not suspend),
 * so all that is measured is what the coroutine path adds (the acquire and the release on `Dispatchers.IO`, the
 * context element, the proxy's suspend adaptation).
 */
open class SuspendingLockedService {

    /** Fixed 30 s lease, never renewed, like [LockedService.fixedLease]. */
    @DistributedLock(key = ["bench:#id"], leaseTime = "30s")
    open suspend fun fixedLease(id: Long): Long = id
}

/** How a JMH thread calls the suspend function: one `runBlocking` per call, which the figure includes. */
object SuspendingCalls {

    @JvmStatic
    fun fixedLease(service: SuspendingLockedService, id: Long): Long = runBlocking { service.fixedLease(id) }
}
