package io.github.redislock.tx;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.ConfigurableTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of a shop (two application contexts, each with its own Redis connections, connection pool
 * and transaction manager) sell from one stock row in one shared H2 database, eight buyers each, every
 * purchase a read-modify-write in a transaction: SELECT the stock, UPDATE it to what was read minus one,
 * INSERT an order. The database is the judge: with the lock around the transaction exactly the stock is sold,
 * whichever order the annotations are written in. With the order reversed by configuration (transaction
 * outside the lock) the lock is released before the commit, the next buyer reads the stock as it was before
 * the uncommitted sale, and the same workload oversells, so the test can fail.
 */
class TwoInstancesPurchaseTest {

    private static final int INITIAL_STOCK = 20;

    private static final int BUYERS_PER_INSTANCE = 8;

    private static final String SKU = "sku-1";

    /**
     * Work done as the transaction commits, after the method returned (as an ORM flush or an outbox write
     * would): it widens the gap between releasing an inner lock and committing, which is what oversells.
     */
    private static final long COMMIT_WORK_MILLIS = 10;

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private String database;

    @BeforeEach
    void createShop() {
        this.database = TransactionTestSupport.newDatabase("shop",
                "CREATE TABLE stock (sku VARCHAR(32) PRIMARY KEY, quantity INT NOT NULL)",
                "CREATE TABLE orders (id BIGINT AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(32) NOT NULL, "
                        + "buyer VARCHAR(64) NOT NULL)");
        TransactionTestSupport.jdbc(this.database).update("INSERT INTO stock (sku, quantity) VALUES (?, ?)", SKU,
                INITIAL_STOCK);
    }

    @AfterEach
    void dropShop() {
        TransactionTestSupport.drop(this.database);
    }

    @ParameterizedTest
    @EnumSource(Written.class)
    void lockAroundTheTransactionSellsExactlyTheStockAcrossTwoInstances(Written written) throws Exception {
        Sales sales = sell(runner(), written);
        assertThat(sales.orders()).isEqualTo(INITIAL_STOCK);
        assertThat(sales.successfulPurchases()).isEqualTo(INITIAL_STOCK);
        assertThat(sales.finalStock()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Written.class)
    void transactionAroundTheLockOversellsTheSameWorkload(Written written) throws Exception {
        Sales sales = sell(LockAroundTransactionTest.transactionOutsideTheLock(runner()), written);
        assertThat(sales.orders()).isGreaterThan(INITIAL_STOCK);
        assertThat(sales.successfulPurchases()).isEqualTo(sales.orders());
        assertThat(sales.finalStock()).isZero();
    }

    private ApplicationContextRunner runner() {
        return TransactionTestSupport.runner(redis.server(), this.database).withUserConfiguration(Config.class);
    }

    /** Runs both instances' buyers together until the stock is sold out; reads the outcome from the database. */
    private Sales sell(ApplicationContextRunner runner, Written written) throws Exception {
        List<Integer> purchases = new ArrayList<>();
        runner.run((first) -> runner.run((second) -> {
            assertThat(first.getBean(RedisConnectionFactory.class))
                    .isNotSameAs(second.getBean(RedisConnectionFactory.class));
            assertThat(first.getBean(DataSource.class)).isNotSameAs(second.getBean(DataSource.class));
            for (ApplicationContext instance : List.of(first, second)) {
                assertThat(((ConfigurableTransactionManager) instance.getBean(PlatformTransactionManager.class))
                        .getTransactionExecutionListeners())
                        .containsExactly(instance.getBean(LockVerifyingTransactionListener.class));
            }
            purchases.add(buyUntilSoldOut(List.of(written.shop(first), written.shop(second))));
        }));
        JdbcTemplate jdbc = TransactionTestSupport.jdbc(this.database);
        return new Sales(purchases.get(0),
                jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE sku = ?", Integer.class, SKU),
                jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = ?", Integer.class, SKU));
    }

    private static int buyUntilSoldOut(List<Shop> shops) throws Exception {
        int buyers = BUYERS_PER_INSTANCE * shops.size();
        ExecutorService pool = Executors.newFixedThreadPool(buyers);
        CyclicBarrier start = new CyclicBarrier(buyers);
        AtomicInteger purchases = new AtomicInteger();
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < shops.size(); i++) {
                Shop shop = shops.get(i);
                for (int b = 0; b < BUYERS_PER_INSTANCE; b++) {
                    String buyer = "instance-" + i + "-buyer-" + b;
                    futures.add(pool.submit(() -> {
                        start.await();
                        while (shop.buy(SKU, buyer)) {
                            purchases.incrementAndGet();
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        return purchases.get();
    }

    record Sales(int successfulPurchases, int orders, int finalStock) {
    }

    enum Written {

        LOCK_ANNOTATION_FIRST {
            @Override
            Shop shop(ApplicationContext context) {
                return context.getBean(LockWrittenFirstShop.class);
            }
        },

        TRANSACTIONAL_ANNOTATION_FIRST {
            @Override
            Shop shop(ApplicationContext context) {
                return context.getBean(TransactionalWrittenFirstShop.class);
            }
        };

        abstract Shop shop(ApplicationContext context);
    }

    public abstract static class Shop {

        private final JdbcTemplate jdbc;

        Shop(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** Buys one item; false when sold out. */
        public abstract boolean buy(String sku, String buyer);

        /** Read, compute, write back: correct only if no other purchase of the sku runs in between. */
        boolean purchase(String sku, String buyer) {
            int stock = this.jdbc.queryForObject("SELECT quantity FROM stock WHERE sku = ?", Integer.class, sku);
            if (stock <= 0) {
                return false;
            }
            this.jdbc.update("UPDATE stock SET quantity = ? WHERE sku = ?", stock - 1, sku);
            this.jdbc.update("INSERT INTO orders (sku, buyer) VALUES (?, ?)", sku, buyer);
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void beforeCommit(boolean readOnly) {
                    simulateWork(COMMIT_WORK_MILLIS);
                }
            });
            return true;
        }

        private static void simulateWork(long millis) {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(ex);
            }
        }
    }

    public static class LockWrittenFirstShop extends Shop {

        LockWrittenFirstShop(JdbcTemplate jdbc) {
            super(jdbc);
        }

        @Override
        @DistributedLock(key = "stock:#sku:lock", waitTime = "30s")
        @Transactional
        public boolean buy(String sku, String buyer) {
            return purchase(sku, buyer);
        }
    }

    public static class TransactionalWrittenFirstShop extends Shop {

        TransactionalWrittenFirstShop(JdbcTemplate jdbc) {
            super(jdbc);
        }

        @Override
        @Transactional
        @DistributedLock(key = "stock:#sku:lock", waitTime = "30s")
        public boolean buy(String sku, String buyer) {
            return purchase(sku, buyer);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        LockWrittenFirstShop lockWrittenFirstShop(JdbcTemplate jdbc) {
            return new LockWrittenFirstShop(jdbc);
        }

        @Bean
        TransactionalWrittenFirstShop transactionalWrittenFirstShop(JdbcTemplate jdbc) {
            return new TransactionalWrittenFirstShop(jdbc);
        }
    }
}
