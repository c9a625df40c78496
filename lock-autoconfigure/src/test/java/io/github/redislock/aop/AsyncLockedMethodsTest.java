package io.github.redislock.aop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.InvalidLockDefinitionException;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.support.LockContexts;
import io.github.redislock.support.OverlapLog;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Methods whose work outlives the call: the lock is held until the returned stage completes or the returned
 * publisher terminates, judged by an overlap log of the work itself, with six callers at once.
 */
class AsyncLockedMethodsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final ExecutorService WORKERS = Executors.newFixedThreadPool(8);

    private static final int CALLERS = 6;

    @AfterAll
    static void stopWorkers() {
        WORKERS.shutdownNow();
    }

    private ApplicationContextRunner runner() {
        return LockContexts.runner(redis).withUserConfiguration(Config.class);
    }

    @Test
    void aCompletableFutureIsLockedUntilItCompletes() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            List<CompletableFuture<Integer>> results = new ArrayList<>();
            List<CompletableFuture<CompletableFuture<Integer>>> calls = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                calls.add(CompletableFuture.supplyAsync(jobs::future, WORKERS));
            }
            for (CompletableFuture<CompletableFuture<Integer>> call : calls) {
                results.add(call.get(30, TimeUnit.SECONDS));
            }
            for (CompletableFuture<Integer> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            }
            assertThat(jobs.log().sections()).isEqualTo(CALLERS);
            assertThat(jobs.log().maxConcurrent()).as("futures running at once under one lock").isEqualTo(1);
            assertThat(redis.command("EXISTS", "future")).isEqualTo(0L);
        });
    }

    @Test
    void aMonoIsLockedFromSubscriptionUntilItTerminates() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            List<Mono<Integer>> monos = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                monos.add(jobs.mono());
            }
            // Nothing is locked, nothing runs, until someone subscribes.
            assertThat(redis.command("EXISTS", "mono")).isEqualTo(0L);
            assertThat(jobs.log().sections()).isZero();
            List<Integer> all = Flux.merge(monos.stream().map((mono) -> mono.subscribeOn(Schedulers.parallel()))
                .toList()).collectList().block(Duration.ofSeconds(30));
            assertThat(all).hasSize(CALLERS).containsOnly(1);
            assertThat(jobs.log().maxConcurrent()).as("monos running at once under one lock").isEqualTo(1);
            assertThat(redis.command("EXISTS", "mono")).isEqualTo(0L);
        });
    }

    @Test
    void aFluxIsLockedUntilItCompletesAndACancelledOneReleases() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            List<Integer> all = Flux.merge(List.of(jobs.flux().subscribeOn(Schedulers.parallel()),
                    jobs.flux().subscribeOn(Schedulers.parallel()), jobs.flux().subscribeOn(Schedulers.parallel())))
                .collectList().block(Duration.ofSeconds(30));
            assertThat(all).hasSize(9);
            assertThat(jobs.log().maxConcurrent()).as("fluxes running at once under one lock").isEqualTo(1);
            // An endless stream, cancelled after three elements: the lock goes with the cancellation.
            assertThat(jobs.endless().take(3).collectList().block(Duration.ofSeconds(30))).hasSize(3);
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.command("EXISTS", "endless").equals(0L));
        });
    }

    @Test
    void aSubscriberThatGivesUpWhileTheLockIsAwaitedLeavesNoLockBehind() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            redis.command("SET", "mono", "someone-else:1", "PX", "30000");
            // The subscriber cancels (a timed-out request) while the lock is still awaited on its behalf.
            assertThat(jobs.mono().timeout(Duration.ofMillis(300)).onErrorReturn(-1).block(Duration.ofSeconds(5)))
                .isEqualTo(-1);
            // The holder leaves; the abandoned acquisition may complete now, and must not keep the key.
            redis.command("DEL", "mono");
            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
                .until(() -> redis.command("EXISTS", "mono").equals(0L));
            assertThat(jobs.log().sections()).as("the method never ran").isZero();
        });
    }

    @Test
    void skippedAsyncCallsReturnEmptyInTheirOwnShape() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            redis.command("SET", "busy", "someone-else", "PX", "30000");
            assertThat(jobs.skippedFuture().get(5, TimeUnit.SECONDS)).isNull();
            assertThat(jobs.skippedMono().block(Duration.ofSeconds(5))).isNull();
            assertThat(jobs.skippedMono().hasElement().block(Duration.ofSeconds(5))).isFalse();
        });
    }

    @Test
    void asyncAndLockedTogetherStillLockEachCall() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            List<CompletableFuture<Integer>> results = new ArrayList<>();
            for (int i = 0; i < CALLERS; i++) {
                results.add(jobs.asyncWork());
            }
            for (CompletableFuture<Integer> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            }
            assertThat(jobs.log().maxConcurrent()).isEqualTo(1);
            assertThat(jobs.log().sections()).isEqualTo(CALLERS);
        });
    }

    @Test
    void oneThreadCallingAnAsyncMethodAgainWaitsForItsFirstCallsWork() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            // The calling thread holds the lock only while the method builds its future; its next call must not
            // take the lock as its own while the first call's work still runs.
            List<CompletableFuture<Integer>> results = WORKERS.submit(() -> {
                List<CompletableFuture<Integer>> futures = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++) {
                    futures.add(jobs.future());
                }
                return futures;
            }).get(60, TimeUnit.SECONDS);
            for (CompletableFuture<Integer> result : results) {
                assertThat(result.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            }
            assertThat(jobs.log().sections()).isEqualTo(CALLERS);
            assertThat(jobs.log().maxConcurrent()).as("futures of one caller running at once").isEqualTo(1);
            assertThat(redis.command("EXISTS", "future")).isEqualTo(0L);
        });
    }

    @Test
    void aMonoSubscribedWhileAnotherRunsWaitsWhicheverPoolThreadTakesItsLock() {
        runner().run((context) -> {
            Jobs jobs = context.getBean(Jobs.class);
            for (int round = 0; round < 20; round++) {
                // The first one's lock was taken on a pool thread that is free again while its work runs; the
                // second one's acquisition may well run on that very thread, and must wait all the same.
                CompletableFuture<Integer> first = jobs.mono().toFuture();
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                    .until(() -> jobs.log().inside() == 1 || first.isDone());
                CompletableFuture<Integer> second = jobs.mono().toFuture();
                assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(1);
                assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(1);
            }
            assertThat(jobs.log().maxConcurrent()).as("monos running at once under one lock").isEqualTo(1);
        });
    }

    @Test
    void aFutureWhoseCompletionCannotBeObservedFailsTheStartup() {
        LockContexts.runner(redis).withUserConfiguration(PlainFutureConfig.class).run((context) -> {
            assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                .isInstanceOf(InvalidLockDefinitionException.class)
                .hasMessageContaining("PlainFutureJob#work")
                .hasMessageContaining("java.util.concurrent.Future");
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class Config {

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        private final OverlapLog log = new OverlapLog();

        /** Through a method: the bean is a class proxy, whose own fields are not the target's. */
        OverlapLog log() {
            return this.log;
        }

        /** Work that runs on another thread, after the method returned. */
        private Integer work() {
            long entered = this.log.enter();
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(30);
            while (System.nanoTime() < until) {
                Thread.onSpinWait();
            }
            this.log.exit(entered);
            return 1;
        }

        @DistributedLock(key = "future", waitTime = "30s")
        public CompletableFuture<Integer> future() {
            return CompletableFuture.supplyAsync(this::work, WORKERS);
        }

        @DistributedLock(key = "mono", waitTime = "30s")
        public Mono<Integer> mono() {
            return Mono.fromCallable(this::work).subscribeOn(Schedulers.boundedElastic());
        }

        @DistributedLock(key = "flux", waitTime = "30s")
        public Flux<Integer> flux() {
            return Flux.range(0, 3).publishOn(Schedulers.boundedElastic()).map((i) -> work());
        }

        @DistributedLock(key = "endless", waitTime = "30s")
        public Flux<Long> endless() {
            return Flux.interval(Duration.ofMillis(10));
        }

        @DistributedLock(key = "busy", onFailure = OnLockFailure.SKIP)
        public CompletableFuture<String> skippedFuture() {
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(key = "busy", onFailure = OnLockFailure.SKIP)
        public Mono<String> skippedMono() {
            return Mono.just("ran");
        }

        @Async
        @DistributedLock(key = "async", waitTime = "30s")
        public CompletableFuture<Integer> asyncWork() {
            return CompletableFuture.completedFuture(work());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PlainFutureConfig {

        @Bean
        PlainFutureJob plainFutureJob() {
            return new PlainFutureJob();
        }
    }

    static class PlainFutureJob {

        @DistributedLock(key = "k")
        public Future<String> work() {
            return CompletableFuture.completedFuture("");
        }
    }
}
