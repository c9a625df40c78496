package io.github.redislock.kotlin

import io.github.redislock.LockHandle
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration
import io.github.redislock.testsupport.RedisServer
import java.util.concurrent.atomic.AtomicInteger
import org.assertj.core.api.Assertions.assertThat
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import org.springframework.util.ClassUtils

/** Application contexts configured the way a Spring Boot application with the starter is, on every Boot line. */
internal object KotlinLockContexts {

    /** Boot's Redis auto-configuration: its own module since Boot 4, spring-boot-autoconfigure before. */
    private val dataRedis: Class<*> = listOf(
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
    ).first { ClassUtils.isPresent(it, null) }.let { Class.forName(it) }

    fun runner(redis: RedisServer): ApplicationContextRunner = ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(dataRedis, AopAutoConfiguration::class.java, RedisLockAutoConfiguration::class.java,
                LockEngineAutoConfiguration::class.java, RedisLockStoreAutoConfiguration::class.java),
        )
        .withPropertyValues("spring.data.redis.url=" + redis.url(), "spring.data.redis.lettuce.pool.enabled=false")
}

/**
 * The store as the tests see it through a connection of their own, not the library's: whether it holds a lock for
 * the handle that says it holds it, now.
 */
fun interface StoreWitness {

    fun assertHolds(lock: LockHandle)
}

/** On Redis: the key holds the handle's value. */
class RedisWitness(private val redis: RedisServer) : StoreWitness {

    override fun assertHolds(lock: LockHandle) {
        assertThat(redis.command("GET", lock.key())).isEqualTo(lock.token())
    }
}

/**
 * The judge that does not trust the library: how many callers are inside a critical section at once (the most
 * ever seen), and how many sections ran.
 */
class Sections {

    private val inside = AtomicInteger()

    private val most = AtomicInteger()

    private val entered = AtomicInteger()

    fun enter() {
        val now = inside.incrementAndGet()
        most.accumulateAndGet(now, Math::max)
        entered.incrementAndGet()
    }

    fun exit() {
        inside.decrementAndGet()
    }

    /** The most callers ever inside at once. */
    fun maxInside(): Int = most.get()

    /** How many sections were entered. */
    fun entered(): Int = entered.get()
}
