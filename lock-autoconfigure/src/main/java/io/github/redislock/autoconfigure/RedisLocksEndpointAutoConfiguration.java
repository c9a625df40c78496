package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockEngineView;
import io.github.redislock.engine.LockInspector;
import io.github.redislock.redlock.RedlockClient;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The read-only {@code redislocks} Actuator endpoint ({@link RedisLocksEndpoint}), with Actuator on the class
 * path, a lock engine in use (the single-Redis engine, Redlock, another store's {@link LockEngine}, e.g.
 * ZooKeeper's, or another front of one engine, e.g. the in-process provider of {@code redis-lock-test}), and the endpoint available (exposed, e.g.
 * {@code management.endpoints.web.exposure.include=health,redislocks}, and not switched off).
 */
@AutoConfiguration(after = { RedisLockAutoConfiguration.class, RedlockAutoConfiguration.class })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@EnableConfigurationProperties(RedisLocksEndpointProperties.class)
public final class RedisLocksEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnBean(RedisLockClient.class)
    RedisLocksEndpoint redisLocksEndpoint(RedisLockClient redisLockClient, RedisLocksEndpointProperties properties) {
        return new RedisLocksEndpoint(redisLockClient, properties.getShowKeys(), properties.getRoles());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnBean(RedlockClient.class)
    RedisLocksEndpoint redlockLocksEndpoint(RedlockClient redlockClient, RedisLocksEndpointProperties properties) {
        return new RedisLocksEndpoint(redlockClient::state, redlockClient, properties.getShowKeys(),
                properties.getRoles());
    }

    // Another store's engine (the ZooKeeper module's): the same endpoint over the engine's own bookkeeping and
    // its store's inspection.
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnBean(LockEngine.class)
    RedisLocksEndpoint lockEngineLocksEndpoint(LockEngine lockEngine, RedisLocksEndpointProperties properties) {
        return new RedisLocksEndpoint(lockEngine::state, lockEngine, properties.getShowKeys(), properties.getRoles());
    }

    // Any other front of one engine that shows its state and answers the holder view (redis-lock-test's
    // in-process provider): the same endpoint. The beans above are such fronts too, and give the same endpoint.
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnSingleCandidate(LockEngineView.class)
    @ConditionalOnBean(LockInspector.class)
    RedisLocksEndpoint lockEngineViewLocksEndpoint(LockEngineView lockEngine, ObjectProvider<LockInspector> inspector,
            RedisLocksEndpointProperties properties) {
        LockInspector holders = (lockEngine instanceof LockInspector own) ? own : inspector.getObject();
        return new RedisLocksEndpoint(lockEngine::state, holders, properties.getShowKeys(), properties.getRoles());
    }
}
