package io.github.redislock.integration.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import io.github.redislock.LockException;
import io.github.redislock.LockProvider;
import io.github.redislock.integration.DistributedLockRegistry;

import static org.assertj.core.api.Assertions.assertThat;

/** Each condition of {@link DistributedLockRegistryAutoConfiguration}, both ways. */
class DistributedLockRegistryAutoConfigurationTest {

    private static final LockProvider LOCKS = (request) -> {
        throw new LockException("not taken in this test");
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(DistributedLockRegistryAutoConfiguration.class));

    @Test
    void theApplicationsLockProviderBacksALockRegistry() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .run((context) -> assertThat(context).hasSingleBean(LockRegistry.class)
                .hasSingleBean(DistributedLockRegistry.class));
    }

    @Test
    void theLeaseIsAProperty() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withPropertyValues("redis-lock.integration.lease-time=2s")
            .run((context) -> assertThat(context.getBean(DistributedLockRegistry.class))
                .hasToString("DistributedLockRegistry[" + LOCKS + ", lease " + Duration.ofSeconds(2) + "]"));
    }

    @Test
    void aLeaseTooShortToRenewFailsTheStartSayingSo() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withPropertyValues("redis-lock.integration.lease-time=1ms")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessage("The leaseTime of a DistributedLockRegistry must be from 3 ms to 30 days, got PT0.001S"));
    }

    @Test
    void aLockRegistryOfTheApplicationsOwnIsKept() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withBean("ownRegistry", LockRegistry.class, DefaultLockRegistry::new)
            .run((context) -> assertThat(context).doesNotHaveBean(DistributedLockRegistry.class)
                .hasSingleBean(LockRegistry.class));
    }

    @Test
    void withoutALockProviderThereIsNone() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
    }

    @Test
    void redisLockDisabledLeavesSpringIntegrationAlone() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withPropertyValues("redis-lock.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(LockRegistry.class));
    }
}
