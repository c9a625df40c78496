package io.github.redislock.sample.shop;

/** The SKU's stock is zero: nothing was sold. */
public class SoldOutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long sku;

    public SoldOutException(long sku) {
        super("SKU " + sku + " is sold out");
        this.sku = sku;
    }

    public long sku() {
        return this.sku;
    }
}
