package io.github.redislock.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.annotation.LeaderRole;
import io.github.redislock.leader.Leadership;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redis-lock.enabled=false} with leader election in the application: no election, so the instance acts as
 * the only one, which leads; said once at INFO.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockingDisabledLeadershipTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                LockEngineAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
                RedisLockGuardAutoConfiguration.class))
        .withPropertyValues("redis-lock.enabled=false", "redis-lock.leader.name=reports");

    @Test
    void leaderOnlyMethodsRunOnEveryCall() {
        this.runner.withBean(Reports.class).run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(Leadership.class);

            assertThat(context.getBean(Reports.class).send()).isEqualTo("sent");
        });
    }

    @Test
    void leaderRoleBeansStartWithTheContextAndStopWithIt() {
        Consumer consumer = new Consumer();
        this.runner.withBean(Consumer.class, () -> consumer).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(consumer.isRunning()).isTrue();
        });
        assertThat(consumer.isRunning()).isFalse();
    }

    @Test
    void saysOnceAtInfoThatThisInstanceLeadsAlone(CapturedOutput output) {
        this.runner.withBean(Reports.class).withBean("orderConsumer", Consumer.class, Consumer::new)
            .run((context) -> assertThat(context).hasNotFailed());

        assertThat(output).containsOnlyOnce("Distributed locks are disabled (redis-lock.enabled=false), and with them "
                + "leader election: this instance acts as the only one, which leads. Methods annotated @LeaderOnly, such "
                + "as " + Reports.class.getName() + "#send, run on every call; the @LeaderRole beans [orderConsumer] start with the "
                + "context. With several instances, each of them does the leader's work.");
    }

    @Test
    void saysNothingWithoutLeaderOnlyMethodsOrRoles(CapturedOutput output) {
        this.runner.run((context) -> assertThat(context).hasNotFailed());

        assertThat(output).doesNotContain("leader election");
    }

    @Test
    void withLockingEnabledItIsNotThere() {
        this.runner.withPropertyValues("redis-lock.enabled=true")
            .run((context) -> assertThat(context).doesNotHaveBean(LockingDisabledLeadership.class));
    }

    static class Reports {

        @LeaderOnly
        public String send() {
            return "sent";
        }
    }

    @LeaderRole
    static class Consumer implements SmartLifecycle {

        private volatile boolean running;

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

        @Override
        public boolean isAutoStartup() {
            return false;
        }
    }
}
