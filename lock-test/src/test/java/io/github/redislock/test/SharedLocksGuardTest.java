package io.github.redislock.test;

import java.util.List;
import java.util.Map;

import io.github.redislock.LockMode;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockGuardAutoConfiguration;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A locked method that asks for a read lock or a semaphore, over a store of exclusive locks only, stops the start-up
 * naming the method and the store, with a failure analysis that says the fix.
 */
class SharedLocksGuardTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                LockEngineAutoConfiguration.class, InProcessLockAutoConfiguration.class,
                RedisLockGuardAutoConfiguration.class));

    @Test
    void aSemaphoreOverAStoreOfExclusiveLocksOnlyStopsTheStartUp() {
        this.runner.withBean(LockStore.class, () -> new ExclusiveOnly(new InMemoryLockStore("")))
            .withBean(PartnerClient.class).run((context) -> {
                assertThat(context).hasFailed();
                Throwable failure = context.getStartupFailure();
                assertThat(failure).hasMessageContaining("PartnerClient#call")
                    .hasMessageContaining("a semaphore of 5 permits")
                    .hasMessageContaining("exclusive-only test store");
                FailureAnalysis analysis = analyze(failure);
                assertThat(analysis.getAction()).contains("remove mode and permits");
            });
    }

    @Test
    void aReadLockOverAStoreOfExclusiveLocksOnlyStopsTheStartUp() {
        this.runner.withBean(LockStore.class, () -> new ExclusiveOnly(new InMemoryLockStore("")))
            .withBean(DocumentReader.class).run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("DocumentReader#read").hasMessageContaining("a read lock"));
    }

    @Test
    void theInProcessStoreKeepsBothAndStarts() {
        this.runner.withBean(PartnerClient.class).withBean(DocumentReader.class)
            .run((context) -> assertThat(context).hasNotFailed());
    }

    private static FailureAnalysis analyze(Throwable failure) {
        // Only analyzers that need no constructor arguments load here; ours is one of them.
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                null, SpringFactoriesLoader.FailureHandler.handleMessage((message, ex) -> {
                }))) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null && analysis.getDescription().contains("keeps exclusive locks only")) {
                return analysis;
            }
        }
        throw new AssertionError("No failure analyzer for " + failure);
    }

    public static class PartnerClient {

        @DistributedLock(key = "partner:api", permits = 5)
        public void call() {
        }
    }

    public static class DocumentReader {

        @DistributedLock(key = "doc:#id", mode = LockMode.READ)
        public void read(String id) {
        }
    }

    /** A store written before shared keys: the five-argument take only, so the defaults refuse the rest. */
    static final class ExclusiveOnly implements LockStore {

        private final InMemoryLockStore delegate;

        ExclusiveOnly(InMemoryLockStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public String key(String name) {
            return this.delegate.key(name);
        }

        @Override
        public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed,
                long deadlineNanos) {
            return this.delegate.take(key, token, leaseMillis, renewed, deadlineNanos);
        }

        @Override
        public boolean leased() {
            return true;
        }

        @Override
        public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
            return this.delegate.extend(locks, leaseMillis);
        }

        @Override
        public void listen(StoreListener listener) {
        }

        @Override
        public String describe() {
            return "exclusive-only test store";
        }

        @Override
        public Map<String, Integer> waiting() {
            return this.delegate.waiting();
        }

        @Override
        public void close() {
            this.delegate.close();
        }
    }
}
