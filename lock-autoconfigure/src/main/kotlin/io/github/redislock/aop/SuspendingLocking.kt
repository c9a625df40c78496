package io.github.redislock.aop

import io.github.redislock.CoroutineLocking
import io.github.redislock.DistributedLockTemplate
import io.github.redislock.LockNotAcquiredException
import io.github.redislock.LockRequest
import kotlin.coroutines.Continuation
import kotlin.coroutines.intrinsics.startCoroutineUninterceptedOrReturn
import kotlin.coroutines.intrinsics.suspendCoroutineUninterceptedOrReturn
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.emitAll
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOn
import kotlinx.coroutines.withContext
import org.aopalliance.intercept.MethodInvocation
import org.springframework.aop.ProxyMethodInvocation
import org.springframework.util.ClassUtils

/**
 * The interceptor's side of locked Kotlin suspend functions and flows, over [CoroutineLocking]. Loaded only when
 * a locked method is one of them, so that Java applications need no Kotlin.
 *
 * A suspend function is called with its caller's continuation as last argument and answers either its value or
 * `COROUTINE_SUSPENDED` (the continuation is resumed later). Spring AOP passes that protocol through as it is,
 * unless kotlinx-coroutines-reactor is on the class path: then its last step calls the function as a `Mono`
 * (in the caller's coroutine context, without its `Job`), and the proxy awaits whatever the interceptors answer
 * with the caller's continuation. Either way the locking coroutine calls the function with a continuation of its
 * own, so that the function runs inside the locked work and in its context (the lock's element), and answers in
 * the proxy's protocol: the suspension itself, or a `Mono`.
 */
internal object SuspendingLocking {

    /** What Spring AOP checks (AopUtils, CglibAopProxy, JdkDynamicAopProxy) to adapt suspend functions to Reactor. */
    private val adaptedByReactor =
        ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", SuspendingLocking::class.java.classLoader)

    /**
     * A call of a locked suspend function, answered as the proxy expects it.
     * @param method the call's `LockOperation` (typed `Any`: a package-private Java type may not appear in the
     * signature of a Kotlin function)
     */
    @JvmStatic
    fun call(template: DistributedLockTemplate, method: Any, request: LockRequest, invocation: MethodInvocation): Any? {
        val operation = method as LockOperation
        val arguments = invocation.arguments
        @Suppress("UNCHECKED_CAST")
        val caller = arguments[arguments.size - 1] as Continuation<Any?>
        val work: suspend () -> Any? = {
            CoroutineLocking.locked(template, request, { failure -> notAcquired(operation, invocation, failure) }) {
                locks -> withContext(locks) { proceed(invocation) }
            }
        }
        return if (adaptedByReactor) ReactorSuspending.asMono(caller.context, work)
            else work.startCoroutineUninterceptedOrReturn(caller)
    }

    /**
     * A locked method returning a `Flow`: the lock is taken when a collection starts and held until it ends.
     * @param method the call's `LockOperation`, as for [call]
     */
    @JvmStatic
    fun flow(template: DistributedLockTemplate, method: Any, request: LockRequest, invocation: MethodInvocation): Flow<Any?> {
        val operation = method as LockOperation
        return flow {
            CoroutineLocking.locked(template, request, { failure ->
                emitAll(flowOf(DistributedLockInterceptor.notAcquired(operation, invocation.getThis(),
                    invocation.arguments, failure)))
            }) { locks ->
                // flowOn: the method's flow runs with the lock's element; emissions reach the collector in its own
                // context (a withContext around emit would break the flow's context preservation).
                emitAll(flowOf(clone(invocation, null).proceed()).flowOn(locks))
            }
        }
    }

    /** What a skipped call of a method returning a `Flow` returns. */
    @JvmStatic
    fun emptyFlow(): Flow<Any?> = kotlinx.coroutines.flow.emptyFlow()

    /** Calls the method (through the rest of the interceptor chain) with this coroutine's continuation. */
    private suspend fun proceed(invocation: MethodInvocation): Any? {
        val answer = suspendCoroutineUninterceptedOrReturn<Any?> { continuation ->
            clone(invocation, continuation).proceed()
        }
        return if (adaptedByReactor) ReactorSuspending.await(answer) else answer
    }

    /** The fallback (a suspend one with this coroutine's continuation), the skipped value, or the failure. */
    private suspend fun notAcquired(
        operation: LockOperation,
        invocation: MethodInvocation,
        failure: LockNotAcquiredException,
    ): Any? {
        val fallback = operation.fallback()
        if (fallback == null || !fallback.isSuspending) {
            return DistributedLockInterceptor.notAcquired(operation, invocation.getThis(), invocation.arguments, failure)
        }
        return suspendCoroutineUninterceptedOrReturn { continuation ->
            val arguments = invocation.arguments.copyOf()
            arguments[arguments.size - 1] = continuation
            DistributedLockInterceptor.notAcquired(operation, invocation.getThis(), arguments, failure)
        }
    }

    /**
     * A fresh invocation of the rest of the chain (a flow may be collected many times, at once), with the given
     * continuation in place of the caller's.
     */
    private fun clone(invocation: MethodInvocation, continuation: Continuation<*>?): MethodInvocation {
        check(invocation is ProxyMethodInvocation) { "Not a Spring AOP proxy invocation: $invocation" }
        val arguments = invocation.arguments.copyOf()
        if (continuation != null) {
            arguments[arguments.size - 1] = continuation
        }
        return invocation.invocableClone(*arguments)
    }

    @Suppress("UNCHECKED_CAST")
    private fun flowOf(value: Any?): Flow<Any?> = (value as Flow<Any?>?) ?: emptyFlow()
}
