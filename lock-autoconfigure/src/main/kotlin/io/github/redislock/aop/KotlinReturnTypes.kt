package io.github.redislock.aop

import java.lang.reflect.Method
import kotlin.reflect.jvm.kotlinFunction

/** What kotlin-reflect says of a Kotlin function's return type; loaded only for suspend functions, with kotlin-reflect. */
internal object KotlinReturnTypes {

    /** Whether the function returns a value that cannot be `null` (a `Unit` function returns nothing to skip with). */
    @JvmStatic
    fun returnsNonNull(method: Method): Boolean {
        val type = method.kotlinFunction?.returnType ?: return false
        return !type.isMarkedNullable && type.classifier != Unit::class
    }
}
