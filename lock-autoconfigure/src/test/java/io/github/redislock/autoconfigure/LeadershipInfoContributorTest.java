package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.actuate.LeadershipInfoContributor;
import io.github.redislock.leader.Leadership;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** {@code /actuator/info}'s {@code leadership} entry: per election, whether this instance leads and in which term. */
class LeadershipInfoContributorTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private final ApplicationContextRunner runner = LockContexts.runner(redis)
        .withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class));

    @Test
    void theLeaderSaysItLeadsAndItsTerm() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports").run((context) -> {
            Leadership leadership = context.getBean(Leadership.class);
            assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).isTrue();

            assertThat(info(context)).containsExactly(Map.entry(LeadershipInfoContributor.KEY,
                    Map.of("reports", Map.of("leader", true, "term", leadership.term().getAsLong()))));
        });
    }

    @Test
    void aCandidateThatStandsBySaysItDoesNotLeadWithoutATerm() {
        // A yield pause longer than the test: once it yielded, it stands by until the context closes.
        this.runner.withPropertyValues("redis-lock.leader.name=reports", "redis-lock.leader.yield-pause=10m")
            .run((context) -> {
                Leadership leadership = context.getBean(Leadership.class);
                assertThat(leadership.awaitLeadership(Duration.ofSeconds(30))).isTrue();
                leadership.yieldLeadership();
                await().atMost(Duration.ofSeconds(30)).until(() -> !leadership.isLeader());

                assertThat(info(context)).containsExactly(Map.entry(LeadershipInfoContributor.KEY,
                        Map.of("reports", Map.of("leader", false))));
            });
    }

    @Test
    void anApplicationInNoElectionContributesNothing() {
        this.runner.run((context) -> assertThat(info(context)).isEmpty());
    }

    @Test
    void switchedOffByManagementInfoLeadershipEnabled() {
        this.runner.withPropertyValues("redis-lock.leader.name=reports", "management.info.leadership.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(LeadershipInfoContributor.class));
    }

    private static Map<String, Object> info(ApplicationContext context) {
        Info.Builder builder = new Info.Builder();
        context.getBean(LeadershipInfoContributor.class).contribute(builder);
        return builder.build().getDetails();
    }
}
