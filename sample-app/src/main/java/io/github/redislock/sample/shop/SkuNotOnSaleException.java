package io.github.redislock.sample.shop;

/** The SKU was never stocked (see {@code PUT /skus/{id}/stock}). */
public class SkuNotOnSaleException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long sku;

    public SkuNotOnSaleException(long sku) {
        super("SKU " + sku + " is not on sale; stock it first with PUT /skus/" + sku + "/stock?quantity=10");
        this.sku = sku;
    }

    public long sku() {
        return this.sku;
    }
}
