package io.github.redislock.support;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redislock.annotation.DistributedLock;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A separate JVM, one "instance" of a service: hammers a racy counter in Redis through a locked method. The
 * witness lives in Redis, independent of the lock: entering the critical section increments
 * {@code witness:inside}, which must then be 1; any other value is counted in {@code witness:overlaps}.
 * <p>
 * Arguments: redis-url threads increments-per-thread
 */
public final class LockHammerProcess {

    private LockHammerProcess() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        int threads = Integer.parseInt(args[1]);
        int increments = Integer.parseInt(args[2]);
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Config.class)
                .web(WebApplicationType.NONE).properties("spring.data.redis.url=" + url, "spring.main.banner-mode=off",
                        "logging.level.root=warn")
                .run()) {
            Counter counter = context.getBean(Counter.class);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < increments; i++) {
                        counter.increment();
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(5, TimeUnit.MINUTES);
            }
            pool.shutdown();
        }
    }

    public static class Counter {

        private final StringRedisTemplate redis;

        public Counter(StringRedisTemplate redis) {
            this.redis = redis;
        }

        @DistributedLock(key = "process-counter:lock", waitTime = "120s")
        public void increment() {
            Long inside = this.redis.opsForValue().increment("witness:inside");
            if (inside == null || inside != 1L) {
                this.redis.opsForValue().increment("witness:overlaps");
            }
            String current = this.redis.opsForValue().get("process-counter");
            long next = ((current != null) ? Long.parseLong(current) : 0) + 1;
            this.redis.opsForValue().set("process-counter", Long.toString(next));
            this.redis.opsForValue().decrement("witness:inside");
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportLockAutoConfiguration
    static class Config {

        @Bean
        Counter counter(StringRedisTemplate redis) {
            return new Counter(redis);
        }
    }
}
