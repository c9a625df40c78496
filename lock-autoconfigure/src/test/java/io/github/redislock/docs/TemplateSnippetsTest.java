package io.github.redislock.docs;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.LockValues;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The samples of {@code docs/template.md}: {@link Shop}'s methods hold the page's code as it is shown there, and
 * each test runs one of them on a real Redis, checking inside the work that the key is held and after it that
 * the key is free.
 */
class TemplateSnippetsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @BeforeEach
    void reset() {
        redis.flushAll();
    }

    @Test
    void executeRunsTheWorkUnderTheKeyAndReturnsItsResult() {
        withShop((shop) -> {
            Receipt receipt = shop.reserveOne(42);
            assertThat(receipt.heldKey()).isEqualTo("sku:42:lock");
            assertThat(held("sku:42:lock")).isFalse();
        });
    }

    @Test
    void runAndTryAcquireRunTheReportUnderItsKey() {
        withShop((shop) -> {
            shop.runReport();
            shop.tryReport();
            assertThat(shop.reportsBuilt).hasValue(2);
            assertThat(held("report:daily")).isFalse();
        });
    }

    @Test
    void aLockRequestTakesBothAccountsAtOnce() {
        withShop((shop) -> {
            shop.transfer("alice", "bob", 5);
            assertThat(shop.bank.transfers).isEqualTo(1);
            assertThat(shop.bank.bothHeld).isTrue();
            assertThat(held("account:alice")).isFalse();
            assertThat(held("account:bob")).isFalse();
        });
    }

    private static void withShop(Consumer<Shop> test) {
        LockContexts.runner(redis)
                .run((context) -> test.accept(new Shop(context.getBean(DistributedLockTemplate.class))));
    }

    private static boolean held(String key) {
        return LockValues.held(redis.command("GET", key));
    }

    /** What the sample's work returns: here, the key it ran under (or the accounts of a transfer). */
    record Receipt(String heldKey) {
    }

    /** A bank whose transfer checks that both accounts' keys are held in Redis while it runs. */
    static final class Bank {

        private int transfers;

        private boolean bothHeld;

        Receipt transfer(String from, String to, long amount) {
            this.transfers++;
            this.bothHeld = held("account:" + from) && held("account:" + to);
            return new Receipt(from + " -> " + to);
        }
    }

    /** The code of {@code docs/template.md}, in the methods a service would have it in. */
    static final class Shop {

        private final DistributedLockTemplate lockTemplate;

        private final Bank bank = new Bank();

        private final AtomicInteger reportsBuilt = new AtomicInteger();

        Shop(DistributedLockTemplate lockTemplate) {
            this.lockTemplate = lockTemplate;
        }

        Receipt reserveOne(long id) {
            Receipt r = lockTemplate.execute("sku:" + id + ":lock", Duration.ofMillis(500), null, () -> reserve(id));
            return r;
        }

        void runReport() {
            lockTemplate.run("report:daily", Duration.ZERO, Duration.ofMinutes(5), this::buildReport);
        }

        void tryReport() {
            Optional<LockHandle> lock = lockTemplate.tryAcquire("report:daily", Duration.ZERO, null);
            if (lock.isPresent()) {
                try (LockHandle handle = lock.get()) {
                    buildReport();
                }
            }
        }

        void transfer(String from, String to, long amount) {
            LockRequest transfer = LockRequest.of(List.of("account:" + from, "account:" + to), Duration.ofSeconds(2), null);
            lockTemplate.execute(transfer, () -> bank.transfer(from, to, amount));
        }

        private Receipt reserve(long id) {
            assertThat(held("sku:" + id + ":lock")).isTrue();
            return new Receipt(LockContext.current().orElseThrow().key());
        }

        private void buildReport() {
            assertThat(held("report:daily")).isTrue();
            this.reportsBuilt.incrementAndGet();
        }
    }
}
