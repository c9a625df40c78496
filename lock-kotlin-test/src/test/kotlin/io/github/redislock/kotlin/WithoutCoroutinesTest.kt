package io.github.redislock.kotlin

import io.github.redislock.InvalidLockDefinitionException
import io.github.redislock.annotation.DistributedLock
import io.github.redislock.testsupport.RedisServerExtension
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Assumptions.assumeFalse
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.util.ClassUtils

/**
 * A locked suspend function in an application without kotlinx-coroutines-core cannot hold its lock: the start-up
 * fails and names the method. Runs in the module's without-coroutines execution (the library is then absent);
 * skipped where it is present.
 */
class WithoutCoroutinesTest {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.shared()
    }

    open class Reserver {

        @DistributedLock(key = ["sku:#id:lock"])
        open suspend fun reserve(id: String): Int = 1
    }

    @Test
    fun aLockedSuspendFunctionFailsTheStartUp() {
        assumeFalse(ClassUtils.isPresent("kotlinx.coroutines.CoroutineScope", null), "kotlinx-coroutines-core is present")
        KotlinLockContexts.runner(redis.server()).withBean(Reserver::class.java).run { context ->
            assertThat(context).hasFailed()
            assertThat(context.startupFailure).rootCause().isInstanceOf(InvalidLockDefinitionException::class.java)
                .hasMessageContaining("Reserver#reserve").hasMessageContaining("kotlinx-coroutines-core")
        }
    }
}
