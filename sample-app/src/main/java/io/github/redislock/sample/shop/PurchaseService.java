package io.github.redislock.sample.shop;

import java.util.UUID;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

/**
 * Sells items. The locked methods live here, in a bean of their own, and not in the controller, because
 * {@code @DistributedLock} works through the Spring proxy: only calls from another bean are locked.
 * <p>
 * Both writers of a SKU's stock take the same lock, {@code sku:<id>:lock}, so a restock cannot interleave with a
 * purchase either.
 */
@Service
public class PurchaseService {

    private final SkuStore store;

    private final SimulatedWork work;

    private final String instanceName;

    public PurchaseService(SkuStore store, SimulatedWork work, FlashSaleProperties properties) {
        this.store = store;
        this.work = work;
        this.instanceName = properties.instanceName();
    }

    /**
     * Sells one item: read the stock, do the work, write the stock back one lower, record the order. That is a
     * read-modify-write in separate Redis commands: two buyers who read the same stock would both sell the same
     * item. The lock makes the whole sequence exclusive per SKU across every instance of the app.
     * @throws SkuNotOnSaleException if the SKU was never stocked
     * @throws SoldOutException if the stock is zero
     * @throws io.github.redislock.LockNotAcquiredException if another purchase of this SKU held the lock for
     * the whole {@code flash-sale.lock-wait-time}
     */
    @DistributedLock(key = "sku:#id:lock", waitTime = "${flash-sale.lock-wait-time:2s}")
    public Order purchase(long id) {
        long stock = this.store.readStock(id).orElseThrow(() -> new SkuNotOnSaleException(id));
        if (stock <= 0) {
            throw new SoldOutException(id);
        }
        this.work.perform();
        this.store.writeStock(id, stock - 1);
        Order order = new Order(UUID.randomUUID().toString(), id, stock - 1, this.instanceName);
        this.store.recordOrder(id, order.id());
        return order;
    }

    /** Starts a new sale of {@code quantity} items, forgetting the previous sale's orders. */
    @DistributedLock(key = "sku:#id:lock", waitTime = "${flash-sale.lock-wait-time:2s}")
    public SkuStatus openSale(long id, long quantity) {
        this.store.openSale(id, quantity);
        return new SkuStatus(id, quantity, quantity, 0);
    }

    /**
     * Whether the stock is zero, read without the lock. Fine for turning buyers away early: purchases, being
     * locked, only ever lower the stock, so a zero seen here stays zero until the next restock. Never use it to
     * decide a sale.
     */
    public boolean isSoldOut(long id) {
        return this.store.readStock(id).map((stock) -> stock <= 0).orElse(false);
    }

    /** The sale as Redis has it now. Not locked: a snapshot is all a reader needs. */
    public SkuStatus status(long id) {
        return this.store.status(id).orElseThrow(() -> new SkuNotOnSaleException(id));
    }
}
