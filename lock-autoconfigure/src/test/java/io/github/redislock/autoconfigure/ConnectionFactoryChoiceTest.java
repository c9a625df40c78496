package io.github.redislock.autoconfigure;

import java.time.Duration;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RespConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which Redis the locks use when the application has several connection factories, and what happens when the
 * locks cannot be set up while {@code @DistributedLock} methods exist: never a silent lock-free run.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConnectionFactoryChoiceTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    @Test
    void severalFactoriesWithoutAChoiceFailTheStartupListingThemAndTheProperty() {
        LockContexts.runner(redis).withUserConfiguration(TwoFactories.class).run((context) -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).contains("2", "none is @Primary", "ordersRedis", "cacheRedis");
            assertThat(analysis.getAction()).contains("redis-lock.connection-factory", "@Primary");
        });
    }

    @Test
    void thePrimaryFactoryIsUsed() {
        LockContexts.runner(redis).withUserConfiguration(TwoFactories.class, PrimaryCache.class).run((context) -> {
            assertThat(context).hasNotFailed();
            lockAndLookWhere(context.getBean(DistributedLockTemplate.class), 1);
        });
    }

    @Test
    void thePropertyNamesTheFactory() {
        LockContexts.runner(redis).withUserConfiguration(TwoFactories.class)
            .withPropertyValues("redis-lock.connection-factory=ordersRedis")
            .run((context) -> lockAndLookWhere(context.getBean(DistributedLockTemplate.class), 0));
    }

    @Test
    void aPropertyNamingNoFactoryFailsTheStartup() {
        LockContexts.runner(redis).withUserConfiguration(TwoFactories.class)
            .withPropertyValues("redis-lock.connection-factory=nope")
            .run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining("'nope'").hasMessageContaining("ordersRedis"));
    }

    @Test
    void lockedMethodsWithoutAConnectionFactoryFailTheStartupNamingTheMethod() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, RedisLockAutoConfiguration.class,
                    LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class,
                    RedisLockGuardAutoConfiguration.class))
            .withUserConfiguration(LockedBean.class)
            .run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = new LockConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
                assertThat(analysis.getDescription()).contains(Locked.class.getName() + "#work",
                        "no RedisConnectionFactory bean");
                assertThat(analysis.getAction()).contains("redis-lock.enabled=false");
            });
    }

    @Test
    void lockedMethodsWithoutSpringDataRedisFailTheStartupSayingSo() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class,
                    LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class,
                    RedisLockGuardAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader(StringRedisTemplate.class))
            .withUserConfiguration(LockedBean.class)
            .run((context) -> assertThat(NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure()))
                .isInstanceOf(LockConfigurationException.class)
                .hasMessageContaining(Locked.class.getName() + "#work")
                .hasMessageContaining("Spring Data Redis is not on the class path"));
    }

    @Test
    void disabledOnPurposeStartsAndSaysSoOnce(CapturedOutput output) {
        LockContexts.runner(redis).withConfiguration(AutoConfigurations.of(RedisLockGuardAutoConfiguration.class))
            .withUserConfiguration(LockedBean.class)
            .withPropertyValues("redis-lock.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Locked.class).work()).isEqualTo("ran");
            });
        assertThat(output).containsOnlyOnce("Distributed locks are disabled (redis-lock.enabled=false)");
    }

    @Test
    void noLockedMethodsAndNoRedisIsFine() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedisLockAutoConfiguration.class,
                    LockEngineAutoConfiguration.class, RedisLockStoreAutoConfiguration.class,
                    RedisLockGuardAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed());
    }

    /** Locks "k" and reports in which Redis database the lock key showed up. */
    private static void lockAndLookWhere(DistributedLockTemplate template, int expectedDatabase) {
        template.run("k", null, null, () -> {
            try (RespConnection connection = RespConnection.open(redis.server().host(), redis.server().port(),
                    Duration.ofSeconds(5))) {
                connection.command("SELECT", Integer.toString(expectedDatabase));
                assertThat(connection.command("EXISTS", "k")).as("lock key in database %s", expectedDatabase)
                    .isEqualTo(1L);
                connection.command("SELECT", Integer.toString(1 - expectedDatabase));
                assertThat(connection.command("EXISTS", "k")).as("lock key in database %s", 1 - expectedDatabase)
                    .isEqualTo(0L);
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoFactories {

        @Bean
        LettuceConnectionFactory ordersRedis() {
            return factory(0);
        }

        @Bean
        LettuceConnectionFactory cacheRedis() {
            return factory(1);
        }

        static LettuceConnectionFactory factory(int database) {
            RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.server().host(),
                    redis.server().port());
            configuration.setDatabase(database);
            return new LettuceConnectionFactory(configuration);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryCache {

        @Bean
        @Primary
        LettuceConnectionFactory primaryRedis() {
            return TwoFactories.factory(1);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class LockedBean {

        @Bean
        Locked locked() {
            return new Locked();
        }
    }

    static class Locked {

        @DistributedLock(key = "k")
        public String work() {
            return "ran";
        }
    }
}
