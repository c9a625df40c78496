package io.github.redislock.docs;

import io.github.redislock.LockContext;
import io.github.redislock.annotation.DistributedLock;

/** The README's quick-start method, as it is shown there; {@link QuickStartSnippetTest} runs it. */
class Checkout {

    @DistributedLock(key = "order:#order.id:lock", waitTime = "2s", leaseTime = "10s")
    public Receipt pay(Order order) {
        return new Receipt(order.getId(), LockContext.current().orElseThrow().key());
    }

    /** What {@link #pay} returns: the order and the key it was paid under. */
    record Receipt(long orderId, String lockKey) {
    }
}
