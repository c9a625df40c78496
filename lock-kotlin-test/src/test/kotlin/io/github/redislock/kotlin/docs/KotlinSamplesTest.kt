package io.github.redislock.kotlin.docs

import io.github.redislock.kotlin.KotlinLockContexts
import io.github.redislock.kotlin.Sections
import io.github.redislock.testsupport.RedisServerExtension
import java.lang.reflect.Modifier
import java.util.concurrent.ConcurrentHashMap
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * The Kotlin samples of docs/kotlin.md run on a real Redis server: `Inventory.reserve` called from two
 * applications never loses a reservation (a stock that counts overlapping load-to-save sections says so, not the
 * library), `updates` runs under its lock, and `withLock` around `reserve` on the same key re-enters it.
 */
class KotlinSamplesTest {

    companion object {

        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.shared()
    }

    private val stock = MemoryStock(10)

    @BeforeEach
    fun reset() {
        redis.flushAll()
    }

    private fun runner(): ApplicationContextRunner = KotlinLockContexts.runner(redis.server())
        .withBean(StockRepository::class.java, { stock })
        .withBean(Inventory::class.java)
        .withBean(Checkout::class.java)

    /** The keys locks left, without the applications' instance registry entries. */
    private fun keys(): List<*> = (redis.command("KEYS", "*") as List<*>).filterNot { (it as String).contains("~lock~instance:") }

    @Test
    fun theSampleServiceIsFinalInSourceAndOpenedByKotlinSpring() {
        assertThat(Modifier.isFinal(Inventory::class.java.modifiers)).isFalse()
        assertThat(Modifier.isFinal(Checkout::class.java.modifiers)).isTrue()
    }

    @Test
    fun reserveFromTwoApplicationsLosesNoReservation() {
        runner().run { first ->
            runner().run { second ->
                runBlocking {
                    for (inventory in listOf(first, second).map { it.getBean(Inventory::class.java) }) {
                        repeat(3) { launch(Dispatchers.Default) { inventory.reserve("42") } }
                    }
                }
            }
        }
        assertThat(stock.sections.maxInside()).isEqualTo(1)
        assertThat(stock.sections.entered()).isEqualTo(6)
        assertThat(stock.left("42")).isEqualTo(4)
        assertThat(keys()).isEmpty()
    }

    @Test
    fun updatesRunUnderTheFeedLock() {
        runner().run { context ->
            val updates = runBlocking { context.getBean(Inventory::class.java).updates("7").toList() }
            assertThat(updates).containsExactly(Update("7", "feed:7:lock"))
        }
        assertThat(keys()).isEmpty()
    }

    @Test
    fun withLockAroundReserveReentersTheSkuLock() {
        runner().run { context ->
            val receipt = runBlocking { context.getBean(Checkout::class.java).checkout("42") }
            assertThat(receipt).isEqualTo(9)
        }
        assertThat(stock.left("42")).isEqualTo(9)
        assertThat(keys()).isEmpty()
    }

    /** A stock in memory whose load-to-save sections are counted, so an overlap of two reservations shows. */
    class MemoryStock(private val initial: Int) : StockRepository {

        val sections = Sections()

        private val left = ConcurrentHashMap<String, Int>()

        fun left(id: String): Int = left.getOrDefault(id, initial)

        override suspend fun load(id: String): Int {
            sections.enter()
            delay(5)
            return left(id)
        }

        override suspend fun save(id: String, left: Int): Int {
            this.left[id] = left
            sections.exit()
            return left
        }
    }
}
