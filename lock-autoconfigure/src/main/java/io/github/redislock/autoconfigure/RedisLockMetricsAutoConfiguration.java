package io.github.redislock.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.leader.Leadership;
import io.github.redislock.metrics.LeaderMetrics;
import io.github.redislock.metrics.RedisLockMetrics;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * The lock engine's meters ({@link RedisLockMetrics}: lost locks, failed renewals, hand-offs, keys held and
 * threads waiting) and the elections' ({@link LeaderMetrics}: who leads, grants, revocations by reason), when the application has a {@link MeterRegistry} and one {@link LockEngine}, whatever its
 * store (built by {@link LockEngineAutoConfiguration} or defined by the application). Spring Boot binds them to
 * its registries. The meters of acquiring, holding and
 * releasing come from the template's observations instead; a {@link io.github.redislock.LockProvider} of the
 * application's own has only those.
 */
@AutoConfiguration(after = LockEngineAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        // Spring Boot 3.5's names for the same.
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnSingleCandidate(LockEngine.class)
public final class RedisLockMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RedisLockMetrics redisLockMetrics(LockEngine lockEngine) {
        return new RedisLockMetrics(lockEngine);
    }

    @Bean
    @ConditionalOnMissingBean
    LeaderMetrics leaderMetrics(ObjectProvider<Leadership> leaderships) {
        return new LeaderMetrics(() -> leaderships.orderedStream().toList());
    }
}
