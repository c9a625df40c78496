package io.github.redislock.docs;

import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's first two examples, {@link Inventory#purchase} and {@link Checkout#pay}, run on a real Redis with
 * the key prefix of the quick start's {@code application.yml}: each runs under the key its template names, and
 * leaves nothing locked.
 */
class QuickStartSnippetTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @Test
    void purchaseRunsUnderTheSkusKey() {
        LockContexts.runner(redis).withPropertyValues("redis-lock.key-prefix=shop:").withBean(Inventory.class)
            .run((context) -> {
                Order order = context.getBean(Inventory.class).purchase(42);
                assertThat(order.lockKey()).isEqualTo("shop:sku:42:lock");
                assertThat(redis.command("EXISTS", "shop:sku:42:lock")).isEqualTo(0L);
            });
    }

    @Test
    void payRunsUnderTheOrdersKey() {
        LockContexts.runner(redis).withPropertyValues("redis-lock.key-prefix=shop:").withBean(Checkout.class)
            .run((context) -> {
                Checkout.Receipt receipt = context.getBean(Checkout.class).pay(new Order(7, "none"));
                assertThat(receipt.lockKey()).isEqualTo("shop:order:7:lock");
                assertThat(redis.command("EXISTS", "shop:order:7:lock")).isEqualTo(0L);
            });
    }
}
