package io.github.redislock.docs;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockContext;
import io.github.redislock.LockProvider;
import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.Leadership;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The samples of {@code docs/leader-election.md}: {@link Reconciliation#reconcile} runs on the leader with its term
 * as the lock context's fencing token; {@link Elections} stands in two elections at once, each led here alone.
 * {@code LeaderOnlyAcrossApplicationsTest} runs the job on three instances.
 */
class LeaderElectionSnippetTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void theJobRunsOnTheLeaderWithItsTerm() {
        LockContexts.runner(redis).withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
            .withPropertyValues("redis-lock.leader.name=reconciliation")
            .withBean(Reconciliation.class)
            .run((context) -> {
                Leadership leadership = context.getBean(Leadership.class);
                assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).isTrue();
                Reconciliation job = context.getBean(Reconciliation.class);
                job.reconcile();
                assertThat(job.terms()).containsExactly(leadership.term().getAsLong());
            });
    }

    @Test
    void anApplicationStandsInSeveralElections() {
        LockContexts.runner(redis).withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
            .withUserConfiguration(Elections.class)
            .run((context) -> {
                assertThat(context.getBeansOfType(Leadership.class).values()).extracting(Leadership::name)
                    .containsExactlyInAnyOrder("billing", "reports");
                for (Leadership leadership : context.getBeansOfType(Leadership.class).values()) {
                    assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).as(leadership.name()).isTrue();
                }
            });
    }

    /** The page's job. */
    static class Reconciliation {

        private final List<Long> terms = new CopyOnWriteArrayList<>();

        @Scheduled(fixedRate = 10_000)
        @LeaderOnly
        public void reconcile() {
            long term = LockContext.current().orElseThrow().fencingToken();   // hand it to what the leader writes
            this.terms.add(term);
        }

        /** The terms the job ran in (a method, since a field read on the proxy would not reach the target). */
        public List<Long> terms() {
            return this.terms;
        }
    }

    /** The page's two elections. */
    @Configuration(proxyBeanMethods = false)
    static class Elections {

        @Bean
        LeaderCandidate billingLeadership(LockProvider locks, ApplicationEventPublisher events) {
            return new LeaderCandidate("billing", locks, events);
        }

        @Bean
        LeaderCandidate reportsLeadership(LockProvider locks, ApplicationEventPublisher events) {
            return new LeaderCandidate("reports", locks, events, Duration.ofSeconds(5));   // yield pause
        }
    }
}
