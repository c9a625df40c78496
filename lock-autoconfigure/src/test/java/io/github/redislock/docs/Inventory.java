package io.github.redislock.docs;

import io.github.redislock.LockContext;
import io.github.redislock.annotation.DistributedLock;

import org.springframework.stereotype.Service;

/** The README's first example, as it is shown there; {@link QuickStartSnippetTest} runs it. */
@Service
class Inventory {

    @DistributedLock(key = "sku:#id:lock", waitTime = "500ms")
    public Order purchase(long id) {
        // at most one caller per SKU, across all instances, runs this at a time
        return new Order(id, LockContext.current().orElseThrow().key());
    }
}
