package io.github.redislock.sample.shop;

/**
 * One item sold.
 *
 * @param id a fresh random id, also what is appended to the SKU's order list in Redis
 * @param sku the SKU bought
 * @param stockLeft the stock this purchase wrote back
 * @param servedBy the app instance that sold it ({@code flash-sale.instance-name})
 */
public record Order(String id, long sku, long stockLeft, String servedBy) {
}
