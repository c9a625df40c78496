package io.github.redislock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.github.redislock.LockContext;
import io.github.redislock.LockLostException;
import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.redislock.autoconfigure.LockEngineAutoConfiguration;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.Leadership;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A test application leads or not: {@link TestLeadership} decides by the test's word, and the real candidate over
 * in-process locks leads alone; {@code @LeaderOnly} follows either.
 */
class TestLeadershipTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, InProcessLockAutoConfiguration.class,
                LockEngineAutoConfiguration.class, RedisLockAutoConfiguration.class,
                LeaderElectionAutoConfiguration.class))
        .withBean(Reconciliation.class);

    @Test
    void aFollowingApplicationSkipsLeaderOnlyCallsUntilGranted() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.following("reconciliation")).run((context) -> {
            Reconciliation job = context.getBean(Reconciliation.class);
            assertThat(job.reconcile()).isNull();
            context.getBean(TestLeadership.class).grant();
            assertThat(job.reconcile()).isEqualTo("reconciled in term 1");
        });
    }

    @Test
    void grantsAndRevocationsArePublishedWithEachGrantANewTerm() {
        List<ApplicationEvent> events = new CopyOnWriteArrayList<>();
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.leading("reconciliation"))
            .withBean(ApplicationListener.class, () -> (ApplicationListener<ApplicationEvent>) (event) -> {
                if (event instanceof LeadershipGrantedEvent || event instanceof LeadershipRevokedEvent) {
                    events.add(event);
                }
            })
            .run((context) -> {
                TestLeadership leadership = context.getBean(TestLeadership.class);
                leadership.yieldLeadership();
                leadership.grant();
                assertThat(leadership.term()).hasValue(2);
                assertThat(events).extracting(Object::toString).containsExactly(
                        "LeadershipRevokedEvent[name=reconciliation, term=1, reason=YIELDED]",
                        "LeadershipGrantedEvent[name=reconciliation, term=2]");
            });
    }

    @Test
    void aTermThatEndsWhileALeaderOnlyCallRunsIsToldAsALostLock() {
        this.runner.withBean(TestLeadership.class, () -> TestLeadership.leading("reconciliation"))
            .withPropertyValues("redis-lock.on-lease-lost=throw")
            .run((context) -> {
                Reconciliation job = context.getBean(Reconciliation.class);
                assertThatThrownBy(() -> job.reconcileWhile(() -> context.getBean(TestLeadership.class)
                    .revoke(LeadershipRevokedEvent.Reason.LOST))).isInstanceOf(LockLostException.class);
            });
    }

    @Test
    void theRealCandidateOverInProcessLocksLeadsAlone() {
        this.runner.withPropertyValues("redis-lock.leader.name=reconciliation").run((context) -> {
            Leadership leadership = context.getBean(Leadership.class);
            assertThat(leadership).isInstanceOf(LeaderCandidate.class);
            assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).isTrue();
            assertThat(context.getBean(Reconciliation.class).reconcile())
                .isEqualTo("reconciled in term " + leadership.term().getAsLong());
        });
    }

    static class Reconciliation {

        @LeaderOnly("reconciliation")
        public String reconcile() {
            return "reconciled in term " + LockContext.current().orElseThrow().fencingToken();
        }

        @LeaderOnly("reconciliation")
        public String reconcileWhile(Runnable meanwhile) {
            meanwhile.run();
            return "reconciled";
        }
    }
}
