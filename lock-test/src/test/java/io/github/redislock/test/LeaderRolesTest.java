package io.github.redislock.test;

import org.junit.jupiter.api.Test;

import io.github.redislock.annotation.LeaderRole;
import io.github.redislock.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.leader.LeadershipRevokedEvent;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code @LeaderRole} beans start on a grant and stop on a revocation, and only there. */
class LeaderRolesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(InProcessLockAutoConfiguration.class, LockEngineAutoConfiguration.class,
                RedisLockAutoConfiguration.class, LeaderElectionAutoConfiguration.class))
        .withPropertyValues("redis-lock.leader.name=orders");

    @Test
    void aRoleBeanStartsOnTheGrantAndStopsOnTheRevocation() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.following("orders"))
            .withBean(Consumer.class)
            .run((context) -> {
                Consumer consumer = context.getBean(Consumer.class);
                assertThat(consumer.isRunning()).as("before the grant").isFalse();
                context.getBean(TestLeadership.class).grant();
                assertThat(consumer.isRunning()).as("after the grant").isTrue();
                context.getBean(TestLeadership.class).revoke(LeadershipRevokedEvent.Reason.YIELDED);
                assertThat(consumer.isRunning()).as("after the revocation").isFalse();
            });
    }

    @Test
    void aRoleBeanThatStartsWithTheContextFailsTheStartUp() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.following("orders"))
            .withBean(EagerConsumer.class)
            .run((context) -> assertThat(context).getFailure().hasMessageContaining(
                    "starts with the context, so it would run on every instance; return false from isAutoStartup()"));
    }

    @Test
    void aRoleBeanThatIsNoLifecycleFailsTheStartUp() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.following("orders"))
            .withBean(NotALifecycle.class)
            .run((context) -> assertThat(context).getFailure().hasMessageContaining(
                    "is marked @LeaderRole but is no SmartLifecycle"));
    }

    @LeaderRole
    static class Consumer implements SmartLifecycle {

        private volatile boolean running;

        @Override
        public boolean isAutoStartup() {
            return false;
        }

        @Override
        public void start() {
            this.running = true;
        }

        @Override
        public void stop() {
            this.running = false;
        }

        @Override
        public boolean isRunning() {
            return this.running;
        }
    }

    @LeaderRole("orders")
    static class EagerConsumer extends Consumer {

        @Override
        public boolean isAutoStartup() {
            return true;
        }
    }

    @LeaderRole
    static class NotALifecycle {

    }
}
