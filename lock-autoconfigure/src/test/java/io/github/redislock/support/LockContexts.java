package io.github.redislock.support;

import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Application contexts configured the way a Spring Boot application with the starter is. */
public final class LockContexts {

    private LockContexts() {
    }

    /** {@link #runner(RedisServer)} on the extension's server. */
    public static ApplicationContextRunner runner(RedisServerExtension redis) {
        return runner(redis.server());
    }

    /** Boot's Redis and AOP auto-configuration plus ours, connected to the given server. */
    public static ApplicationContextRunner runner(RedisServer redis) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootAutoConfigurations.redis(), AopAutoConfiguration.class,
                        RedisLockAutoConfiguration.class, LockEngineAutoConfiguration.class,
                        RedisLockStoreAutoConfiguration.class, RedlockAutoConfiguration.class))
                // Jedis on the test class path brings commons-pool2, with which Boot would pool Lettuce: keep
                // Boot's default for applications without it (one shared connection, the engine's direct path).
                .withPropertyValues("spring.data.redis.url=" + redis.url(),
                        "spring.data.redis.lettuce.pool.enabled=false");
    }
}
