package io.github.redislock.zookeeper.autoconfigure;

import java.util.Objects;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockStoreAutoConfiguration;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.engine.LockStore;
import io.github.redislock.zookeeper.ZooKeeperLockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Locks in ZooKeeper instead of Redis, with {@code redis-lock-zookeeper} on the class path and either
 * {@code redis-lock.zookeeper.connect-string} set or a {@link CuratorFramework} bean defined (as Spring Cloud
 * Zookeeper does; it is then used as it is, and must be started). Runs before the Redis stores' auto-configurations:
 * its {@link ZooKeeperLockStore} is the application's one {@link LockStore}, so the single-Redis and Redlock
 * stores back off, {@link LockEngineAutoConfiguration} builds the engine over it and the template and
 * {@code @DistributedLock} lock in ZooKeeper; the application needs no Redis at all. Bad settings stop the start-up
 * with a failure analysis; an unreachable ensemble does not (lock calls then fail with
 * {@link io.github.redislock.LockException} within the connection timeout). Backs off as a whole when the application
 * (or a test, with {@code @AutoConfigureInProcessLocks}, ordered before this) already has a {@link LockProvider} or
 * a {@link LockStore}: no client then connects to an ensemble whose locks nobody takes.
 */
@AutoConfiguration(before = { RedlockAutoConfiguration.class, RedisLockStoreAutoConfiguration.class,
        LockEngineAutoConfiguration.class }, afterName = "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration")
@ConditionalOnClass(CuratorFramework.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@Conditional(ZooKeeperLockAutoConfiguration.OnZooKeeper.class)
@ConditionalOnMissingBean({ LockProvider.class, LockStore.class })
@EnableConfigurationProperties(ZooKeeperLockProperties.class)
public final class ZooKeeperLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    CuratorFramework redisLockCuratorFramework(ZooKeeperLockProperties properties) {
        String connectString = ZooKeeperSettings.connectString(
                Objects.requireNonNullElse(properties.getConnectString(), ""));
        CuratorFramework client = CuratorFrameworkFactory.builder()
            .connectString(connectString)
            .sessionTimeoutMs((int) properties.getSessionTimeout().toMillis())
            .connectionTimeoutMs((int) properties.getConnectionTimeout().toMillis())
            // Retries of an operation cut by a disconnection; each attempt waits up to the connection timeout.
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .build();
        // Connects in the background: an unreachable ensemble does not stop the start-up.
        client.start();
        return client;
    }

    @Bean(destroyMethod = "close")
    ZooKeeperLockStore zooKeeperLockStore(CuratorFramework curatorFramework, ZooKeeperLockProperties properties) {
        String basePath = ZooKeeperSettings.basePath(properties.getBasePath());
        return new ZooKeeperLockStore(curatorFramework, basePath, properties.getConnectionTimeout());
    }

    /** {@code redis-lock.zookeeper.connect-string} is set, or the application has a {@link CuratorFramework}. */
    static final class OnZooKeeper extends AnyNestedCondition {

        OnZooKeeper() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnProperty("redis-lock.zookeeper.connect-string")
        static final class ConnectString {

        }

        @ConditionalOnBean(CuratorFramework.class)
        static final class OwnClient {

        }
    }
}
