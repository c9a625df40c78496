package io.github.redislock.test;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Imported only by {@link AutoConfigureInProcessLocks}: an {@link InProcessLockProvider} as the application's
 * {@link LockProvider}, before {@link RedisLockAutoConfiguration}, which then builds the template and the advice on
 * it instead of on Redis, and before the ZooKeeper store's auto-configuration (named, so that this artifact does
 * not depend on {@code redis-lock-zookeeper}), which then backs off instead of defining its engine.
 */
// Without the name, the order between the two would be left to their class names, and whichever ran first would
// win: the test's opt-in must not depend on that.
@AutoConfiguration(before = RedisLockAutoConfiguration.class,
        beforeName = "io.github.redislock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration")
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class InProcessLockAutoConfiguration {

    private static final Log logger = LogFactory.getLog(InProcessLockAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    InProcessLockProvider inProcessLockProvider(RedisLockProperties properties) {
        // Said every time: a test run should show that its locks did not exclude other processes.
        logger.info("@AutoConfigureInProcessLocks: locks are taken in this JVM only, not in Redis");
        return new InProcessLockProvider(properties.getKeyPrefix());
    }
}
