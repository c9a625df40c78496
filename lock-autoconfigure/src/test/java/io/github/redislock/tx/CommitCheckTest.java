package io.github.redislock.tx;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockLostException;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A transaction that began under a lock is checked just before it commits: if the lock was lost meanwhile
 * (its lease ran out, or the key was deleted or taken over in Redis), the commit fails with
 * {@link LockLostException} and the transaction rolls back, so work done without the lock never becomes
 * visible. Each test writes a row inside the transaction and looks for it afterwards with plain JDBC.
 */
class CommitCheckTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static String database;

    private static JdbcTemplate db;

    @BeforeAll
    static void start() {
        database = TransactionTestSupport.newDatabase("ledger", "CREATE TABLE entries (id VARCHAR(64) PRIMARY KEY)");
        db = TransactionTestSupport.jdbc(database);
    }

    @AfterAll
    static void stop() {
        TransactionTestSupport.drop(database);
    }

    @Test
    void transactionWhoseLockIsStillHeldCommits() {
        runner().run((context) -> {
            context.getBean(Ledger.class).recordWithRenewedLease("held", () -> {
            });
            assertThat(rowExists("held")).isTrue();
            assertThat(context.getBean(Losses.class).all()).isEmpty();
            assertThat(TransactionTestSupport.exists(redis.server(), key("held"))).isFalse();
        });
    }

    @Test
    void fixedLeaseThatRanOutBeforeCommitRollsBackWithLockLostException() {
        runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.recordWithFixedLease("expired",
                    () -> TransactionTestSupport.awaitGone(redis.server(), key("expired"))))
                    .satisfies((ex) -> assertLockLostAtCommit(ex, "expired"));
            assertThat(rowExists("expired")).isFalse();
            assertThat(context.getBean(Losses.class).all()).extracting(LockLostEvent::getKey,
                    LockLostEvent::getDetection).containsExactly(tuple(key("expired"), LockLossDetection.COMMIT_CHECK));
        });
    }

    @Test
    void lockDeletedBehindTheClientsBackBeforeCommitRollsBack() {
        runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.recordWithRenewedLease("deleted",
                    () -> assertThat(redis.command("DEL", key("deleted"))).isEqualTo(1L)))
                    .satisfies((ex) -> assertLockLostAtCommit(ex, "deleted"));
            assertThat(rowExists("deleted")).isFalse();
            assertThat(context.getBean(Losses.class).all()).extracting(LockLostEvent::getDetection)
                    .containsExactly(LockLossDetection.COMMIT_CHECK);
        });
    }

    @Test
    void lockTakenOverByAnotherHolderBeforeCommitRollsBackAndLeavesTheOtherHoldersKey() {
        runner().run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            assertThatThrownBy(() -> ledger.recordWithRenewedLease("taken-over",
                    () -> redis.command("SET", key("taken-over"), "someone-else", "PX", "30000")))
                    .satisfies((ex) -> assertLockLostAtCommit(ex, "taken-over"));
            assertThat(rowExists("taken-over")).isFalse();
            assertThat(redis.command("GET", key("taken-over"))).isEqualTo("someone-else");
        });
    }

    /** A loss the lease renewal already found fails the commit without asking Redis again. */
    @Test
    void lossAlreadyFoundByRenewalRollsBackEvenWithoutTheRedisCheck() {
        runner().withPropertyValues("redis-lock.verify-before-commit=false").run((context) -> {
            Ledger ledger = context.getBean(Ledger.class);
            LockEngine client = context.getBean(LockEngine.class);
            assertThatThrownBy(() -> ledger.recordWithRenewedLease("renewal", () -> {
                redis.command("DEL", key("renewal"));
                client.renewNow();
            })).satisfies((ex) -> assertLockLostAtCommit(ex, "renewal"));
            assertThat(rowExists("renewal")).isFalse();
            assertThat(context.getBean(Losses.class).all()).extracting(LockLostEvent::getDetection)
                    .containsExactly(LockLossDetection.RENEWAL);
        });
    }

    /**
     * The documented trade-off of {@code verify-before-commit=false}: a fixed lease is never renewed, so
     * nothing has noticed its expiry by commit time and the transaction commits; the loss is only found (and
     * reported, here as an event, with the default {@code on-lease-lost=warn}) when the lock is released after
     * the commit.
     */
    @Test
    void withoutTheRedisCheckAnExpiredFixedLeaseCommitsAndTheLossIsOnlyReportedAtRelease() {
        runner().withPropertyValues("redis-lock.verify-before-commit=false").run((context) -> {
            context.getBean(Ledger.class).recordWithFixedLease("unchecked",
                    () -> TransactionTestSupport.awaitGone(redis.server(), key("unchecked")));
            assertThat(rowExists("unchecked")).isTrue();
            assertThat(context.getBean(Losses.class).all()).extracting(LockLostEvent::getKey,
                    LockLostEvent::getDetection).containsExactly(tuple(key("unchecked"), LockLossDetection.RELEASE));
        });
    }

    /** Same, with {@code on-lease-lost=throw}: the call fails, but only after its work was committed. */
    @Test
    void withoutTheRedisCheckOnLeaseLostThrowFailsTheCallOnlyAfterTheCommit() {
        runner().withPropertyValues("redis-lock.verify-before-commit=false", "redis-lock.on-lease-lost=throw")
                .run((context) -> {
                    Ledger ledger = context.getBean(Ledger.class);
                    assertThatThrownBy(() -> ledger.recordWithFixedLease("thrown-late",
                            () -> TransactionTestSupport.awaitGone(redis.server(), key("thrown-late"))))
                            .isExactlyInstanceOf(LockLostException.class).hasNoCause()
                            .hasMessageContaining("was lost while");
                    assertThat(rowExists("thrown-late")).isTrue();
                });
    }

    /** Thrown by the commit itself, unwrapped, through both proxies' advice, naming the lost key. */
    private static void assertLockLostAtCommit(Throwable thrown, String id) {
        assertThat(thrown).isExactlyInstanceOf(LockLostException.class).hasNoCause()
                .hasMessageContaining("before the transaction that began under it could commit; rolling back");
        assertThat(((LockLostException) thrown).getKey()).isEqualTo(key(id));
        assertThat(thrown.getSuppressed()).isEmpty();
    }

    private static String key(String id) {
        return "entry:" + id + ":lock";
    }

    private static boolean rowExists(String id) {
        return db.queryForObject("SELECT COUNT(*) FROM entries WHERE id = ?", Integer.class, id) == 1;
    }

    private ApplicationContextRunner runner() {
        return TransactionTestSupport.runner(redis.server(), database).withUserConfiguration(Config.class);
    }

    /** Writes an entry inside a transaction begun under the entry's lock, then does {@code meanwhile}. */
    public static class Ledger {

        private final JdbcTemplate jdbc;

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @DistributedLock(key = "entry:#id:lock")
        @Transactional
        public void recordWithRenewedLease(String id, Runnable meanwhile) {
            this.jdbc.update("INSERT INTO entries (id) VALUES (?)", id);
            meanwhile.run();
        }

        @DistributedLock(key = "entry:#id:lock", leaseTime = "200ms")
        @Transactional
        public void recordWithFixedLease(String id, Runnable meanwhile) {
            this.jdbc.update("INSERT INTO entries (id) VALUES (?)", id);
            meanwhile.run();
        }
    }

    static final class Losses implements ApplicationListener<LockLostEvent> {

        private final List<LockLostEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(LockLostEvent event) {
            this.events.add(event);
        }

        List<LockLostEvent> all() {
            return this.events;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Ledger ledger(JdbcTemplate jdbc) {
            return new Ledger(jdbc);
        }

        @Bean
        Losses losses() {
            return new Losses();
        }
    }
}
