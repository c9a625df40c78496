package io.github.redislock.test;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.github.redislock.actuate.RedisLocksEndpoint;
import io.github.redislock.actuate.RedisLocksEndpoint.ElectionDescriptor;
import io.github.redislock.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockMetricsAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLocksEndpointAutoConfiguration;
import io.github.redislock.leader.LeadershipRevokedEvent;
import io.github.redislock.metrics.LeaderMetrics;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** The elections on the {@code redislocks} endpoint, and their meters. */
class LeaderObservabilityTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class, LockEngineAutoConfiguration.class,
                RedisLockAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
                RedisLockMetricsAutoConfiguration.class, RedisLocksEndpointAutoConfiguration.class))
        .withPropertyValues("management.endpoints.web.exposure.include=redislocks")
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @Test
    void theEndpointShowsEachElectionWhetherThisInstanceLeadsAndItsTerm() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.leading("orders")).run((context) -> {
            assertThat(context.getBean(RedisLocksEndpoint.class).locks().elections())
                .containsExactly(new ElectionDescriptor("orders", true, 1L, "leader~orders"));
            context.getBean(TestLeadership.class).yieldLeadership();
            assertThat(context.getBean(RedisLocksEndpoint.class).locks().elections())
                .containsExactly(new ElectionDescriptor("orders", false, null, "leader~orders"));
        });
    }

    @Test
    void metersTellWhoLeadsAndCountGrantsAndRevocationsByReason() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.following("orders")).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            context.getBean(LeaderMetrics.class).bindTo(registry);
            TestLeadership leadership = context.getBean(TestLeadership.class);
            assertThat(registry.get("redis.lock.leader").tag("election", "orders").gauge().value()).isZero();
            leadership.grant();
            assertThat(registry.get("redis.lock.leader").tag("election", "orders").gauge().value()).isOne();
            leadership.revoke(LeadershipRevokedEvent.Reason.LOST);
            leadership.grant();
            assertThat(registry.get("redis.lock.leader.grants").tag("election", "orders").counter().count())
                .isEqualTo(2);
            assertThat(registry.get("redis.lock.leader.revocations").tags("election", "orders", "reason", "lost")
                .counter().count()).isOne();
        });
    }
}
