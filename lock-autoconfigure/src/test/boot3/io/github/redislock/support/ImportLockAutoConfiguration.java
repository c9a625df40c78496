package io.github.redislock.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;

import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;

/** Boot's Redis and AOP auto-configuration plus ours, as an application with the starter has them (Boot 3.5). */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ImportAutoConfiguration({ RedisAutoConfiguration.class, AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
        LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class })
public @interface ImportLockAutoConfiguration {

}
