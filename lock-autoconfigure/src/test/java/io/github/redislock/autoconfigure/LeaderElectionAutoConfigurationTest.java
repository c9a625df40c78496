package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.aop.LeaderOnlyAdvisor;
import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.Leadership;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code redis-lock.leader.*} and {@code @LeaderOnly}'s advice: when the candidate is defined and when it backs off,
 * its start after the refresh and its stop at close, and the start-up errors of bad elections.
 */
class LeaderElectionAutoConfigurationTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private final ApplicationContextRunner runner = LockContexts.runner(redis)
        .withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class));

    @Test
    void aNamedElectionMakesTheApplicationACandidateThatLeadsAlone() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports").run((context) -> {
            Leadership leadership = context.getBean(Leadership.class);
            assertThat(leadership).isInstanceOf(LeaderCandidate.class);
            assertThat(leadership.name()).isEqualTo("reports");
            assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).isTrue();
            assertThat(leadership.term()).isPresent();
        });
    }

    @Test
    void withoutANameThereIsNoCandidateButTheAdviceIsThere() {
        this.runner.run((context) -> {
            assertThat(context).doesNotHaveBean(Leadership.class);
            assertThat(context).hasSingleBean(LeaderOnlyAdvisor.class);
        });
    }

    @Test
    void aLeadershipOfTheApplicationsOwnReplacesTheCandidate() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports")
            .withBean(Leadership.class, FollowerOnly::new)
            .run((context) -> assertThat(context).getBean(Leadership.class).isInstanceOf(FollowerOnly.class));
    }

    @Test
    void withLocksDisabledThereIsNeitherCandidateNorAdvice() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports", "redis-lock.enabled=false").run((context) -> {
            assertThat(context).doesNotHaveBean(Leadership.class);
            assertThat(context).doesNotHaveBean(LeaderOnlyAdvisor.class);
        });
    }

    @Test
    void aBlankNameIsRefusedNamingTheProperty() {
        this.runner.withPropertyValues("redis-lock.leader.name= ").run((context) -> assertThat(context)
            .getFailure().rootCause().hasMessageContaining("redis-lock.leader").hasMessageContaining("name"));
    }

    @Test
    void aNegativeYieldPauseIsRefused() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports", "redis-lock.leader.yield-pause=-1s")
            .run((context) -> assertThat(context).getFailure().rootCause().hasMessageContaining("yieldPause"));
    }

    @Test
    void theGrantIsPublishedAfterTheRefreshAndTheRevocationWhenTheContextCloses() {
        List<ApplicationEvent> events = new CopyOnWriteArrayList<>();
        this.runner.withPropertyValues("redis-lock.leader.name=reports")
            .withBean(ApplicationListener.class, () -> (ApplicationListener<ApplicationEvent>) (event) -> {
                if (event instanceof LeadershipGrantedEvent || event instanceof LeadershipRevokedEvent) {
                    events.add(event);
                }
            })
            .run((context) -> {
                assertThat(context.getBean(Leadership.class).awaitLeadership(Duration.ofSeconds(30))).isTrue();
                long term = context.getBean(Leadership.class).term().getAsLong();
                ((ConfigurableApplicationContext) context.getSourceApplicationContext()).close();
                assertThat(events).hasSize(2);
                assertThat(events.get(0)).isInstanceOfSatisfying(LeadershipGrantedEvent.class, (granted) -> {
                    assertThat(granted.getName()).isEqualTo("reports");
                    assertThat(granted.getTerm()).isEqualTo(term);
                });
                assertThat(events.get(1)).isInstanceOfSatisfying(LeadershipRevokedEvent.class, (revoked) -> {
                    assertThat(revoked.getTerm()).isEqualTo(term);
                    assertThat(revoked.getReason()).isEqualTo(LeadershipRevokedEvent.Reason.STOPPED);
                });
            });
    }

    @Test
    void leaderOnlyWithoutAnElectionFailsTheStartUp() {
        this.runner.withUserConfiguration(DefaultElectionJob.class).run((context) -> assertThat(context)
            .getFailure().rootCause().hasMessageContaining("@LeaderOnly names no election and "
                    + "redis-lock.leader.name is not set"));
    }

    @Test
    void leaderOnlyNamingAnElectionTheApplicationDoesNotStandInFailsTheStartUp() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports").withUserConfiguration(NamedElectionJob.class)
            .run((context) -> assertThat(context).getFailure()
                .hasMessageContaining("@LeaderOnly methods name the elections [billing], which the application does "
                        + "not stand in (it stands in [reports])"));
    }

    @Test
    void leaderOnlyOnAMethodReturningAPrimitiveFailsTheStartUp() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports").withUserConfiguration(PrimitiveJob.class)
            .run((context) -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("returns the primitive int, which has no value to skip with"));
    }

    @Test
    void leaderOnlyOnAFinalMethodFailsTheStartUp() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports").withUserConfiguration(FinalJob.class)
            .run((context) -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("calls to it cannot be intercepted, so it would run on every instance"));
    }

    @Test
    void leaderOnlyWithAnInvalidElectionNameFailsTheStartUp() {
        this.runner.withUserConfiguration(ControlCharacterJob.class)
            .run((context) -> assertThat(context).getFailure()
                .hasStackTraceContaining("@LeaderOnly's election is no valid name: Lock key has a control character"));
    }

    /** A leadership of the application's own that never leads. */
    static final class FollowerOnly implements Leadership {

        @Override
        public String name() {
            return "reports";
        }

        @Override
        public boolean isLeader() {
            return false;
        }

        @Override
        public OptionalLong term() {
            return OptionalLong.empty();
        }

        @Override
        public void yieldLeadership() {
        }

        @Override
        public boolean awaitLeadership(Duration timeout) {
            return false;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class DefaultElectionJob {

        @Bean
        Job job() {
            return new Job();
        }
    }

    static class Job {

        @LeaderOnly
        public void run() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NamedElectionJob {

        @Bean
        BillingJob job() {
            return new BillingJob();
        }
    }

    static class BillingJob {

        @LeaderOnly("billing")
        public Optional<String> run() {
            return Optional.of("billed");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimitiveJob {

        @Bean
        CountingJob job() {
            return new CountingJob();
        }
    }

    static class CountingJob {

        @LeaderOnly
        public int count() {
            return 1;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FinalJob {

        @Bean
        FinalMethodJob job() {
            return new FinalMethodJob();
        }
    }

    static class FinalMethodJob {

        @LeaderOnly
        public final void run() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ControlCharacterJob {

        @Bean
        BadNameJob job() {
            return new BadNameJob();
        }
    }

    static class BadNameJob {

        @LeaderOnly("bad\tname")
        public void run() {
        }
    }
}
