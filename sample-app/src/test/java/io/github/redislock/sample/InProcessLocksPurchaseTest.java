package io.github.redislock.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.github.redislock.sample.shop.PurchaseService;
import io.github.redislock.sample.shop.SoldOutException;
import io.github.redislock.test.AutoConfigureInProcessLocks;
import io.github.redislock.test.AutoConfigureLockRecorder;
import io.github.redislock.test.InMemoryLockStore;
import io.github.redislock.test.LockRecorder;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.redislock.test.LockAssertions.assertThat;
import static io.github.redislock.test.LockAssertions.assertThatLock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A test of the sale's rules where the lock is not what is tested: the locks are taken in this JVM
 * ({@code @AutoConfigureInProcessLocks}), so they never touch Redis, and still exclude each other within the JVM.
 * Only the sale's data is in Redis (a redis-server of the test's own).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = { "flash-sale.embedded-redis.enabled=false", "flash-sale.processing-time=1ms" })
@AutoConfigureInProcessLocks
@AutoConfigureLockRecorder
@Timeout(60)
class InProcessLocksPurchaseTest {

    @RegisterExtension
    static final RedisServerExtension dataRedis = RedisServerExtension.shared();

    @DynamicPropertySource
    static void dataRedis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", dataRedis::url);
    }

    @Autowired
    PurchaseService purchases;

    @Autowired
    LockRecorder lockRecorder;

    @Autowired
    InMemoryLockStore locks;

    @BeforeEach
    void forgetEarlierLocks() {
        this.lockRecorder.clear();
    }

    @Test
    void purchasesAndRestocksRunUnderTheSkusLock() {
        this.purchases.openSale(5, 1);
        this.purchases.purchase(5);

        assertThat(this.lockRecorder).tookExactly("sku:5:lock", "sku:5:lock").holdsNothing();
        assertThatLock(this.locks, "flash-sale:sku:5:lock").isFree();
        assertThat(dataRedis.command("EXISTS", "flash-sale:sku:5:lock")).as("no lock key in Redis").isEqualTo(0L);
    }

    @Test
    void aSoldOutSkuRefusesTheBuyerAndReleasesTheLock() {
        this.purchases.openSale(6, 0);

        assertThatThrownBy(() -> this.purchases.purchase(6)).isInstanceOf(SoldOutException.class);
        assertThat(this.lockRecorder).ranUnder("sku:6:lock").holdsNothing();
    }

    @Test
    void concurrentBuyersInOneJvmNeverOversell() throws Exception {
        this.purchases.openSale(7, 5);
        ExecutorService buyers = Executors.newFixedThreadPool(8);
        try {
            List<Future<Boolean>> outcomes = new ArrayList<>();
            Callable<Boolean> buy = () -> {
                try {
                    this.purchases.purchase(7);
                    return true;
                }
                catch (SoldOutException ex) {
                    return false;
                }
            };
            for (int i = 0; i < 30; i++) {
                outcomes.add(buyers.submit(buy));
            }
            int sold = 0;
            for (Future<Boolean> outcome : outcomes) {
                sold += outcome.get() ? 1 : 0;
            }
            assertThat(sold).isEqualTo(5);
            assertThat(this.purchases.status(7).orders()).isEqualTo(5);
            assertThat(this.purchases.status(7).stock()).isZero();
        }
        finally {
            buyers.shutdownNow();
        }
    }
}
