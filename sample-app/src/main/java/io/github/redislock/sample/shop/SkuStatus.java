package io.github.redislock.sample.shop;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The state of a SKU's sale as stored in Redis.
 *
 * @param sku the SKU
 * @param stocked how many items were put on sale
 * @param stock the stock counter as it is now
 * @param orders how many orders were recorded
 */
public record SkuStatus(long sku, long stocked, long stock, long orders) {

    /** Orders beyond the items that existed: anything above zero is an item sold that was never there. */
    @JsonProperty
    public long oversold() {
        return Math.max(0, this.orders - this.stocked);
    }
}
