package io.github.redislock.sample.shop;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * The sale's data in Redis, one plain command per method and nothing atomic on purpose: making the purchase
 * safe is the lock's job, and this class must not hide the race the lock closes.
 * <p>
 * Keys, for SKU 42: {@code flash-sale:sku:42:stock} (string, the stock left), {@code flash-sale:sku:42:stocked}
 * (string, how many were put on sale) and {@code flash-sale:sku:42:orders} (list of order ids). The lock key,
 * {@code flash-sale:sku:42:lock}, shares the prefix through {@code redis-lock.key-prefix}.
 */
@Component
public class SkuStore {

    /** Every key the sample writes starts with this, so its data can be cleared without touching anything else. */
    public static final String KEY_PREFIX = "flash-sale:";

    private final StringRedisTemplate redis;

    public SkuStore(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** GET of the stock; empty when the SKU was never stocked. */
    public Optional<Long> readStock(long sku) {
        return Optional.ofNullable(this.redis.opsForValue().get(stockKey(sku))).map(Long::valueOf);
    }

    /** SET of the stock, whatever it is now. */
    public void writeStock(long sku, long stock) {
        this.redis.opsForValue().set(stockKey(sku), Long.toString(stock));
    }

    /** RPUSH of the order id onto the SKU's order list. */
    public void recordOrder(long sku, String orderId) {
        this.redis.opsForList().rightPush(ordersKey(sku), orderId);
    }

    /** Starts a new sale: {@code quantity} items in stock and no orders. */
    public void openSale(long sku, long quantity) {
        this.redis.delete(ordersKey(sku));
        this.redis.opsForValue().set(stockedKey(sku), Long.toString(quantity));
        this.redis.opsForValue().set(stockKey(sku), Long.toString(quantity));
    }

    /** The sale as Redis has it now; empty when the SKU was never stocked. */
    public Optional<SkuStatus> status(long sku) {
        List<String> values = this.redis.opsForValue().multiGet(List.of(stockedKey(sku), stockKey(sku)));
        if (values == null || values.get(0) == null || values.get(1) == null) {
            return Optional.empty();
        }
        Long orders = this.redis.opsForList().size(ordersKey(sku));
        return Optional.of(new SkuStatus(sku, Long.parseLong(values.get(0)), Long.parseLong(values.get(1)),
                (orders != null) ? orders : 0));
    }

    /**
     * Deletes every key under {@link #KEY_PREFIX} (SCAN, then DEL in batches), and nothing else: the simulation
     * may run against a Redis that holds other data.
     * @return how many keys were deleted
     */
    public long deleteSampleKeys() {
        ScanOptions options = ScanOptions.scanOptions().match(KEY_PREFIX + "*").count(500).build();
        long deleted = 0;
        List<String> batch = new ArrayList<>();
        try (Cursor<String> keys = this.redis.scan(options)) {
            while (keys.hasNext()) {
                batch.add(keys.next());
                if (batch.size() == 500) {
                    deleted += deleteAll(batch);
                }
            }
        }
        return deleted + deleteAll(batch);
    }

    private long deleteAll(List<String> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        Long deleted = this.redis.delete(keys);
        keys.clear();
        return (deleted != null) ? deleted : 0;
    }

    private static String stockKey(long sku) {
        return KEY_PREFIX + "sku:" + sku + ":stock";
    }

    private static String stockedKey(long sku) {
        return KEY_PREFIX + "sku:" + sku + ":stocked";
    }

    private static String ordersKey(long sku) {
        return KEY_PREFIX + "sku:" + sku + ":orders";
    }
}
