package io.github.redislock.autoconfigure;

import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.leader.Leadership;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The read-only {@code redislocks} Actuator endpoint ({@link RedisLocksEndpoint}), with Actuator on the class
 * path, the application's one {@link LockEngine} (whatever its store: the single Redis, Redlock, ZooKeeper,
 * in-process locks; built by {@link LockEngineAutoConfiguration} or defined by the application), and the endpoint
 * available (exposed, e.g. {@code management.endpoints.web.exposure.include=health,redislocks}, and not switched
 * off). The list reads the engine's snapshot; {@code /actuator/redislocks/{key}} asks its store who holds a key.
 */
@AutoConfiguration(after = LockEngineAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@EnableConfigurationProperties(RedisLocksEndpointProperties.class)
public final class RedisLocksEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnSingleCandidate(LockEngine.class)
    RedisLocksEndpoint redisLocksEndpoint(LockEngine lockEngine, RedisLocksEndpointProperties properties,
            ObjectProvider<Leadership> leaderships) {
        return new RedisLocksEndpoint(lockEngine, properties.getShowKeys(), properties.getRoles(),
                () -> leaderships.orderedStream().toList());
    }
}
