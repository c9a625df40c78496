package io.github.redislock.benchmarks.clients;

import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Minimal Spring Boot applications against the benchmark Redis. Each context has its own Lettuce
 * connection factory and client resources, exactly as one service instance would, so several contexts in
 * one JVM stand in for several processes. Every Spring-based lock (ours, the naive template lock, Spring
 * Integration's registry) gets its connection from Boot's {@code DataRedisAutoConfiguration}, so they all
 * run on the same connection set-up and differ only in the lock itself.
 */
public final class SpringContexts {

    private SpringContexts() {
    }

    /** Boot's Redis connection, Spring AOP and redis-lock, plus {@link LockedService} and its suspend twin. */
    public static ConfigurableApplicationContext withLock(String redisUrl, String... properties) {
        return start(LockConfig.class, redisUrl, properties);
    }

    /**
     * Spring AOP and redis-lock on ZooKeeper ({@code lock-zookeeper}'s auto-configuration, its own Curator client),
     * with no Redis connection at all.
     */
    public static ConfigurableApplicationContext withZooKeeperLock(String connectString) {
        return new SpringApplicationBuilder(ZooKeeperLockConfig.class).web(WebApplicationType.NONE)
            .properties("redis-lock.zookeeper.connect-string=" + connectString,
                    "redis-lock.zookeeper.connection-timeout=10s", "spring.main.banner-mode=off",
                    "spring.main.register-shutdown-hook=false", "spring.main.log-startup-info=false")
            .run();
    }

    /** Boot's Redis connection only ({@code RedisConnectionFactory}, {@code StringRedisTemplate}). */
    public static ConfigurableApplicationContext redisOnly(String redisUrl) {
        return start(RedisOnlyConfig.class, redisUrl);
    }

    private static ConfigurableApplicationContext start(Class<?> config, String redisUrl, String... properties) {
        return new SpringApplicationBuilder(config).web(WebApplicationType.NONE)
            .properties("spring.data.redis.url=" + redisUrl, "spring.data.redis.timeout=10s",
                    "spring.main.banner-mode=off", "spring.main.register-shutdown-hook=false",
                    "spring.main.log-startup-info=false")
            .properties(properties)
            .run();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
            RedisLockAutoConfiguration.class, LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class,
            RedlockAutoConfiguration.class })
    static class LockConfig {

        @Bean
        LockedService lockedService() {
            return new LockedService();
        }

        @Bean
        SuspendingLockedService suspendingLockedService() {
            return new SuspendingLockedService();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ AopAutoConfiguration.class, ZooKeeperLockAutoConfiguration.class,
            LockEngineAutoConfiguration.class, RedisLockAutoConfiguration.class })
    static class ZooKeeperLockConfig {
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(DataRedisAutoConfiguration.class)
    static class RedisOnlyConfig {
    }
}
