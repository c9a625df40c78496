package io.github.redislock;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.support.LockContexts;
import io.github.redislock.support.OverlapLog;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two application contexts, as two instances of a service with their own Redis connections, hammer a
 * deliberately racy read-modify-write counter in Redis through an annotated method, 16 threads each. The
 * judge is independent of the lock: the final counter value (lost updates) and an overlap log of the
 * critical sections. A control run without the lock shows the same workload does lose updates, so the
 * test can fail.
 */
class TwoInstancesMutualExclusionTest {

    private static final int THREADS_PER_INSTANCE = 16;

    private static final int INCREMENTS_PER_THREAD = 25;

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @BeforeEach
    void reset() {
        redis.flushAll();
    }

    @Test
    void noLostUpdatesAndNoOverlapAcrossTwoInstances() throws Exception {
        OverlapLog log = new OverlapLog();
        int total = hammer(runner(log), log);
        assertThat(redis.command("GET", "counter")).isEqualTo(Integer.toString(total));
        assertThat(log.sections()).isEqualTo(total);
        assertThat(log.maxConcurrent()).isEqualTo(1);
        assertThat(log.overlappingPairs()).isZero();
    }

    @Test
    void withoutTheLockTheSameWorkloadLosesUpdates() throws Exception {
        OverlapLog log = new OverlapLog();
        int total = hammer(runner(log).withPropertyValues("redis-lock.enabled=false"), log);
        long counted = Long.parseLong((String) redis.command("GET", "counter"));
        assertThat(counted).isLessThan(total);
        assertThat(log.maxConcurrent()).isGreaterThan(1);
    }

    private ApplicationContextRunner runner(OverlapLog log) {
        return LockContexts.runner(redis).withBean(OverlapLog.class, () -> log).withUserConfiguration(Config.class);
    }

    /** Runs both instances' threads together; returns how many increments were made. */
    private int hammer(ApplicationContextRunner runner, OverlapLog log) throws Exception {
        List<Integer> made = new ArrayList<>();
        runner.run((first) -> runner.run((second) -> {
            assertThat(first.getBean(RedisConnectionFactory.class))
                    .isNotSameAs(second.getBean(RedisConnectionFactory.class));
            made.add(run(List.of(first, second)));
        }));
        return made.get(0);
    }

    private static int run(List<ApplicationContext> instances) throws Exception {
        int threads = THREADS_PER_INSTANCE * instances.size();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (ApplicationContext instance : instances) {
                RacyCounter counter = instance.getBean(RacyCounter.class);
                for (int t = 0; t < THREADS_PER_INSTANCE; t++) {
                    futures.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < INCREMENTS_PER_THREAD; i++) {
                            counter.increment();
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : futures) {
                future.get(120, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        return threads * INCREMENTS_PER_THREAD;
    }

    /** GET then SET in two round trips: correct only if no one else runs in between. */
    public static class RacyCounter {

        private final StringRedisTemplate redis;

        private final OverlapLog log;

        public RacyCounter(StringRedisTemplate redis, OverlapLog log) {
            this.redis = redis;
            this.log = log;
        }

        @DistributedLock(key = "counter:lock", waitTime = "60s")
        public void increment() {
            long entered = this.log.enter();
            String current = this.redis.opsForValue().get("counter");
            long next = ((current != null) ? Long.parseLong(current) : 0) + 1;
            this.redis.opsForValue().set("counter", Long.toString(next));
            this.log.exit(entered);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        RacyCounter racyCounter(StringRedisTemplate redis, OverlapLog log) {
            return new RacyCounter(redis, log);
        }
    }
}
