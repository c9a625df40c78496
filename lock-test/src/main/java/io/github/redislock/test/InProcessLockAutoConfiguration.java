package io.github.redislock.test;

import java.time.Instant;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.autoconfigure.RedlockAutoConfiguration;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockLossListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Imported only by {@link AutoConfigureInProcessLocks}: an {@link InProcessLockProvider} as the application's
 * {@link LockProvider} (with {@code redis-lock.lease-time} as its renewed lease, and a {@link LockLostEvent} for
 * each lock found lost, as the production engines have them), before {@link RedisLockAutoConfiguration}, which
 * then builds the template and the advice on it instead of on Redis, before {@link RedlockAutoConfiguration},
 * whose client then backs off, and before the ZooKeeper store's
 * auto-configuration (named, so that this artifact does not depend on {@code redis-lock-zookeeper}), which then
 * backs off instead of defining its engine.
 */
// Without the name, the order between the two would be left to their class names, and whichever ran first would
// win: the test's opt-in must not depend on that.
@AutoConfiguration(before = { RedisLockAutoConfiguration.class, RedlockAutoConfiguration.class },
        beforeName = "io.github.redislock.zookeeper.autoconfigure.ZooKeeperLockAutoConfiguration")
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class InProcessLockAutoConfiguration {

    private static final Log logger = LogFactory.getLog(InProcessLockAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    InProcessLockProvider inProcessLockProvider(RedisLockProperties properties, ApplicationEventPublisher publisher,
            ObjectProvider<InstanceInfo> instance, Environment environment) {
        // Said every time: a test run should show that its locks did not exclude other processes.
        logger.info("@AutoConfigureInProcessLocks: locks are taken in this JVM only, not in Redis");
        // The renewed lease and the loss events as the production engines have them.
        InProcessLockProvider provider = new InProcessLockProvider(properties.getKeyPrefix(),
                properties.getLeaseTime(), new LostEvents(publisher));
        // This process as RedisLockAutoConfiguration describes it, for the endpoint's holder view.
        provider.publishInstance(instance.getIfUnique(
                () -> InstanceInfo.current(environment.getProperty("spring.application.name", "application"))));
        return provider;
    }

    /** The engine's loss signal as a {@link LockLostEvent} in the application context, as in production. */
    private record LostEvents(ApplicationEventPublisher publisher) implements LockLossListener {

        @Override
        public void lockLost(String key, String token, long fencingToken, LockLossDetection detection) {
            this.publisher.publishEvent(new LockLostEvent(this, key, token, fencingToken, Instant.now(), detection));
        }
    }
}
