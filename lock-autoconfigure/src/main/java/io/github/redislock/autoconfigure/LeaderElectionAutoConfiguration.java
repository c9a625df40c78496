package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockProvider;
import io.github.redislock.actuate.LeadershipInfoContributor;
import io.github.redislock.aop.LeaderOnlyAdvisor;
import io.github.redislock.leader.LeaderCandidate;
import io.github.redislock.leader.LeaderOnlyCalls;
import io.github.redislock.leader.LeaderRoles;
import io.github.redislock.leader.Leadership;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.info.ConditionalOnEnabledInfoContributor;
import org.springframework.boot.actuate.info.InfoContributor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * Leader election: with {@code redis-lock.leader.name}, a {@link LeaderCandidate} of that election on the
 * application's {@link LockProvider} (the engine over the one store), which is the {@link Leadership} bean, started
 * once the context is refreshed and stopped first when it closes; and, whatever the elections, the advice behind
 * {@code @LeaderOnly}, which grants a call only while this instance leads the method's election, and
 * {@link LeaderOnlyCalls}, which holds a leadership given up here until its running calls have returned; and
 * {@link LeaderRoles}, which starts the {@code @LeaderRole} beans on a grant and stops them on a revocation. Several elections:
 * define {@link LeaderCandidate} beans of your own, one per name (this one's backs off when any {@link Leadership}
 * bean is defined). With Actuator, whether this instance leads each election, in {@code /actuator/info}
 * ({@link LeadershipInfoContributor}, {@code management.info.leadership.enabled}). Backs off with
 * {@code redis-lock.enabled=false}.
 */
@AutoConfiguration(after = { LockEngineAutoConfiguration.class, RedisLockAutoConfiguration.class })
@ConditionalOnBooleanProperty(name = "redis-lock.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ RedisLockProperties.class, LeaderElectionProperties.class })
@Import(LockProxyRegistrar.class)
public final class LeaderElectionAutoConfiguration {

    @Bean
    @ConditionalOnProperty("redis-lock.leader.name")
    @ConditionalOnBean(LockProvider.class)
    @ConditionalOnMissingBean(Leadership.class)
    LeaderCandidate leaderCandidate(LockProvider lockProvider, LeaderElectionProperties properties,
            ApplicationEventPublisher publisher) {
        return new LeaderCandidate(properties.getName(), lockProvider, publisher, properties.getYieldPause());
    }

    @Bean
    @ConditionalOnMissingBean
    LeaderOnlyCalls leaderOnlyCalls(ObjectProvider<Leadership> leaderships) {
        return new LeaderOnlyCalls(() -> leaderships.orderedStream().toList());
    }

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyAdvisor leaderOnlyAdvisor(Environment environment, ObjectProvider<LeaderOnlyCalls> calls,
            ObjectProvider<RedisLockProperties> properties, BeanFactory beanFactory) {
        // Read straight from the environment, as the lock advice's order: advisors are sorted early.
        int order = Binder.get(environment).bind("redis-lock.order", Integer.class)
            .orElse(RedisLockProperties.DEFAULT_ORDER);
        return new LeaderOnlyAdvisor(environment, () -> environment.getProperty("redis-lock.leader.name"),
                () -> new DistributedLockTemplate(calls.getObject().locks(), Duration.ZERO,
                        properties.getObject().getOnLeaseLost()),
                beanFactory, (order == Integer.MIN_VALUE) ? order : order - 1);
    }

    @Bean
    @ConditionalOnMissingBean
    LeaderRoles leaderRoles(ListableBeanFactory beanFactory, Environment environment) {
        return new LeaderRoles(beanFactory, () -> environment.getProperty("redis-lock.leader.name"));
    }

    /** Whether this instance leads each of its elections, in {@code /actuator/info}; nothing without elections. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ InfoContributor.class, ConditionalOnEnabledInfoContributor.class })
    static class LeadershipInfoConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnEnabledInfoContributor(LeadershipInfoContributor.KEY)
        LeadershipInfoContributor leadershipInfoContributor(ObjectProvider<Leadership> leaderships) {
            return new LeadershipInfoContributor(() -> leaderships.orderedStream().toList());
        }
    }

    @Bean
    static LeaderOnlyElectionsCheck leaderOnlyElectionsCheck(ObjectProvider<LeaderOnlyAdvisor> advisor,
            ObjectProvider<Leadership> leaderships) {
        return new LeaderOnlyElectionsCheck(advisor, leaderships);
    }
}
