package io.github.redislock.aop

import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.Job
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.reactor.mono
import reactor.core.publisher.Mono

/**
 * The Reactor side of [SuspendingLocking], loaded only when kotlinx-coroutines-reactor is on the class path (then
 * Spring AOP has adapted the suspend function to a `Mono`, and awaits what the interceptor answers).
 */
internal object ReactorSuspending {

    /** The locked work as the `Mono` the proxy awaits, run in the caller's context (its `Job` aside, as Spring does). */
    fun asMono(caller: CoroutineContext, work: suspend () -> Any?): Mono<Any> =
        mono(caller.minusKey(Job)) { work() }

    /** The value of what the rest of the chain answered (the function as a `Mono`), as the proxy would await it. */
    suspend fun await(answer: Any?): Any? =
        (if (answer is Mono<*>) answer else Mono.justOrEmpty(answer)).awaitSingleOrNull()
}
