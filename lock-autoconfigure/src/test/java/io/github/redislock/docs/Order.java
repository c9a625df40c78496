package io.github.redislock.docs;

/** An order of the README's examples: its id, and the key the lock that handled it had. */
public final class Order {

    private final long id;

    private final String lockKey;

    Order(long id, String lockKey) {
        this.id = id;
        this.lockKey = lockKey;
    }

    /** The order's id, which the quick start's key template names ({@code #order.id}). */
    public long getId() {
        return this.id;
    }

    String lockKey() {
        return this.lockKey;
    }
}
