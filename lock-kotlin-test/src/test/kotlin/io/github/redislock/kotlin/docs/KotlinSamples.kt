package io.github.redislock.kotlin.docs

import io.github.redislock.DistributedLockTemplate
import io.github.redislock.LockContext
import io.github.redislock.annotation.DistributedLock
import io.github.redislock.withLock
import java.time.Duration
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import org.springframework.stereotype.Service

// The two samples of docs/kotlin.md, as they are shown there; KotlinSamplesTest runs them. Inventory is not
// declared open: the module applies the kotlin-spring compiler plugin, as a Spring Boot Kotlin project does.

/** Where the sample keeps its stock: it suspends to load and to save. */
interface StockRepository {

    suspend fun load(id: String): Int

    /** Stores [left] and returns it. */
    suspend fun save(id: String, left: Int): Int
}

/** What the sample's flow emits: the key of the lock it runs under, read inside the flow. */
data class Update(val id: String, val lockKey: String?)

@Service
class Inventory(private val stock: StockRepository) {

    @DistributedLock(key = ["sku:#id:lock"], waitTime = "20s")
    suspend fun reserve(id: String): Int {
        val left = stock.load(id)   // suspends: the lock stays held
        delay(120)
        return stock.save(id, left - 1)
    }

    @DistributedLock(key = ["feed:#id:lock"])
    fun updates(id: String): Flow<Update> = flow {
        emit(Update(id, LockContext.current().map { it.key() }.orElse(null)))
    }
}

/** The `withLock` sample: a reservation under the SKU's lock, taken programmatically. */
class Checkout(private val lockTemplate: DistributedLockTemplate, private val inventory: Inventory) {

    suspend fun checkout(id: String): Int {
        val receipt = lockTemplate.withLock("sku:$id:lock", waitTime = Duration.ofSeconds(2)) {
            inventory.reserve(id)   // suspend calls allowed
        }
        return receipt
    }
}
