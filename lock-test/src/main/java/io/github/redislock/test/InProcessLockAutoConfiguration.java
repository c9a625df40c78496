package io.github.redislock.test;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.engine.LockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Imported only by {@link AutoConfigureInProcessLocks}: an {@link InMemoryLockStore} (with {@code redis-lock.key-prefix})
 * as the application's one {@link LockStore}, under the engine {@link LockEngineAutoConfiguration} builds as for any
 * store (with {@code redis-lock.lease-time}, a {@code LockLostEvent} for each lock found lost, the endpoint and
 * the meters). Ordered before every other store's auto-configuration, which then backs off: the single Redis's
 * ({@link RedisLockStoreAutoConfiguration}), Redlock's ({@link RedlockAutoConfiguration}) and the ZooKeeper
 * module's (named, so that this artifact does not depend on {@code redis-lock-zookeeper}), which then connects
 * no client. Backs off itself when the test defines a {@link LockProvider} or a {@link LockStore} of its own.
 */
// Without the names, the order between these would be left to their class names, and whichever ran first would
// win: the test's opt-in must not depend on that.
@AutoConfiguration(before = { RedisLockStoreAutoConfiguration.class, RedlockAutoConfiguration.class,
        LockEngineAutoConfiguration.class },
        beforeName = "io.github.redislock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration")
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class InProcessLockAutoConfiguration {

    private static final Log logger = LogFactory.getLog(InProcessLockAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean({ LockProvider.class, LockStore.class })
    InMemoryLockStore inMemoryLockStore(RedisLockProperties properties) {
        // Said every time: a test run should show that its locks did not exclude other processes.
        logger.info("@AutoConfigureInProcessLocks: locks are taken in this JVM only, not in Redis");
        return new InMemoryLockStore(properties.getKeyPrefix());
    }
}
