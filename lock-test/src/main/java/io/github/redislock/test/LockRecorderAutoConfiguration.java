package io.github.redislock.test;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockProvider;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockProperties;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Imported only by {@link AutoConfigureLockRecorder}: the {@link DistributedLockTemplate} (the one path of the
 * template and of {@code @DistributedLock}) over a recording view of the application's {@link LockProvider},
 * before {@link RedisLockAutoConfiguration}, whose own template then backs off.
 */
@AutoConfiguration(before = RedisLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RedisLockProperties.class)
public final class LockRecorderAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    LockRecorder lockRecorder() {
        return new LockRecorder();
    }

    @Bean
    @ConditionalOnMissingBean
    DistributedLockTemplate distributedLockTemplate(ObjectProvider<LockProvider> lockProvider,
            RedisLockProperties properties, LockRecorder lockRecorder) {
        // Looked up at the first lock, like the template of RedisLockAutoConfiguration would be created only then:
        // a test without any lock provider fails where it locks, saying there is none.
        LockProvider provider = (request) -> lockProvider.getObject().acquire(request);
        return new DistributedLockTemplate(lockRecorder.recording(provider), properties.getWaitTime(),
                properties.getOnLeaseLost());
    }
}
