package io.github.redislock.tx;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.aop.DistributedLockAdvisor;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.BeanFactoryTransactionAttributeSourceAdvisor;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @DistributedLock} and {@code @Transactional} on the same method: the lock is taken before the
 * transaction begins and released after it has committed or rolled back, whichever order the two annotations
 * are written in (the advisors' orders decide, not the source). Observed from the outside of the lock: a
 * transaction listener that looks at the lock key in Redis when the transaction begins and ends, and a
 * synchronization registered inside the method that looks at it when the transaction completes. A run with
 * the order reversed by configuration shows the probes do see the other order.
 */
class LockAroundTransactionTest {

    static final String KEY = "probe:lock";

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static String database;

    @BeforeAll
    static void start() {
        database = TransactionTestSupport.newDatabase("probe");
    }

    @AfterAll
    static void stop() {
        TransactionTestSupport.drop(database);
    }

    @ParameterizedTest
    @EnumSource(Written.class)
    void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCommits(Written written) {
        runner().run((context) -> {
            Events events = context.getBean(Events.class);
            written.probe(context).run(false);
            events.add("returned");
            assertThat(events.all()).containsExactly(
                    "before begin: lock held",
                    "in method, transaction active: lock held",
                    "after completion (committed): lock held",
                    "after commit: lock held",
                    "returned: lock free");
        });
    }

    @ParameterizedTest
    @EnumSource(Written.class)
    void lockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItRollsBack(Written written) {
        runner().run((context) -> {
            Events events = context.getBean(Events.class);
            assertThatThrownBy(() -> written.probe(context).run(true)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("fails on purpose");
            events.add("returned");
            assertThat(events.all()).containsExactly(
                    "before begin: lock held",
                    "in method, transaction active: lock held",
                    "after completion (rolled back): lock held",
                    "after rollback: lock held",
                    "returned: lock free");
        });
    }

    /**
     * Control: with the lock advice ordered last and the application's own {@code @EnableTransactionManagement}
     * ordered first (Boot's then backs off), the transaction is outside the lock, and the probes see the lock
     * free at begin and already released at commit.
     */
    @ParameterizedTest
    @EnumSource(Written.class)
    void orderReversedByConfigurationReleasesTheLockBeforeCommit(Written written) {
        transactionOutsideTheLock(runner()).run((context) -> {
            assertThat(context.getBeansOfType(BeanFactoryTransactionAttributeSourceAdvisor.class).values())
                    .singleElement().extracting(BeanFactoryTransactionAttributeSourceAdvisor::getOrder)
                    .isEqualTo(0);
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(Ordered.LOWEST_PRECEDENCE);
            Events events = context.getBean(Events.class);
            written.probe(context).run(false);
            events.add("returned");
            assertThat(events.all()).containsExactly(
                    "before begin: lock free",
                    "in method, transaction active: lock held",
                    "after completion (committed): lock free",
                    "after commit: lock free",
                    "returned: lock free");
        });
    }

    /** The lock inside the transaction: lock advice ordered last, the application's transaction advice first. */
    static ApplicationContextRunner transactionOutsideTheLock(ApplicationContextRunner runner) {
        return runner.withUserConfiguration(TransactionOutsideTheLock.class)
                .withPropertyValues("redis-lock.order=" + Ordered.LOWEST_PRECEDENCE);
    }

    private ApplicationContextRunner runner() {
        return TransactionTestSupport.runner(redis.server(), database).withUserConfiguration(Config.class);
    }

    enum Written {

        LOCK_ANNOTATION_FIRST {
            @Override
            Probe probe(ApplicationContext context) {
                return context.getBean(LockWrittenFirst.class);
            }
        },

        TRANSACTIONAL_ANNOTATION_FIRST {
            @Override
            Probe probe(ApplicationContext context) {
                return context.getBean(TransactionalWrittenFirst.class);
            }
        };

        abstract Probe probe(ApplicationContext context);
    }

    /** What happened, in order, each with whether the lock key existed in Redis at that moment. */
    static final class Events {

        private final List<String> events = new CopyOnWriteArrayList<>();

        void add(String event) {
            boolean held = TransactionTestSupport.exists(redis.server(), KEY);
            this.events.add(event + ": " + (held ? "lock held" : "lock free"));
        }

        List<String> all() {
            return this.events;
        }
    }

    /** Sees every transaction of the context's transaction manager begin and end (Boot registers it there). */
    static final class RecordingListener implements TransactionExecutionListener {

        private final Events events;

        RecordingListener(Events events) {
            this.events = events;
        }

        @Override
        public void beforeBegin(TransactionExecution transaction) {
            this.events.add("before begin");
        }

        @Override
        public void afterCommit(TransactionExecution transaction, Throwable commitFailure) {
            this.events.add("after commit");
        }

        @Override
        public void afterRollback(TransactionExecution transaction, Throwable rollbackFailure) {
            this.events.add("after rollback");
        }
    }

    public abstract static class Probe {

        private final Events events;

        Probe(Events events) {
            this.events = events;
        }

        public abstract void run(boolean fail);

        void body(boolean fail) {
            this.events.add("in method, " + (TransactionSynchronizationManager.isActualTransactionActive()
                    ? "transaction active" : "no transaction"));
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCompletion(int status) {
                    Probe.this.events.add("after completion ("
                            + ((status == STATUS_COMMITTED) ? "committed" : (status == STATUS_ROLLED_BACK)
                                    ? "rolled back" : "unknown") + ")");
                }
            });
            if (fail) {
                throw new IllegalStateException("fails on purpose");
            }
        }
    }

    public static class LockWrittenFirst extends Probe {

        LockWrittenFirst(Events events) {
            super(events);
        }

        @Override
        @DistributedLock(key = KEY)
        @Transactional
        public void run(boolean fail) {
            body(fail);
        }
    }

    public static class TransactionalWrittenFirst extends Probe {

        TransactionalWrittenFirst(Events events) {
            super(events);
        }

        @Override
        @Transactional
        @DistributedLock(key = KEY)
        public void run(boolean fail) {
            body(fail);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        Events events() {
            return new Events();
        }

        @Bean
        RecordingListener recordingListener(Events events) {
            return new RecordingListener(events);
        }

        @Bean
        LockWrittenFirst lockWrittenFirst(Events events) {
            return new LockWrittenFirst(events);
        }

        @Bean
        TransactionalWrittenFirst transactionalWrittenFirst(Events events) {
            return new TransactionalWrittenFirst(events);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionOutsideTheLock {
    }
}
