package io.github.redislock.shedlock.autoconfigure;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import io.github.redislock.LockException;
import io.github.redislock.LockProvider;
import io.github.redislock.shedlock.DistributedLockShedLockProvider;
import io.github.redislock.shedlock.ShedLockLease;

import static org.assertj.core.api.Assertions.assertThat;

/** Each condition of {@link ShedLockAutoConfiguration}, both ways. */
class ShedLockAutoConfigurationTest {

    private static final LockProvider LOCKS = (request) -> {
        throw new LockException("not taken in this test");
    };

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ShedLockAutoConfiguration.class));

    @Test
    void theApplicationsLockProviderBacksShedLockWithLockAtMostForAsTheLease() {
        this.runner.withBean(LockProvider.class, () -> LOCKS).run((context) -> {
            assertThat(context).hasSingleBean(net.javacrumbs.shedlock.core.LockProvider.class);
            assertThat(context.getBean(DistributedLockShedLockProvider.class).lease())
                .isEqualTo(ShedLockLease.LOCK_AT_MOST_FOR);
        });
    }

    @Test
    void theRenewedLeaseIsAProperty() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withPropertyValues("redis-lock.shedlock.lease=renewed")
            .run((context) -> assertThat(context.getBean(DistributedLockShedLockProvider.class).lease())
                .isEqualTo(ShedLockLease.RENEWED));
    }

    @Test
    void anUnknownLeaseFailsTheStartNamingTheProperty() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withPropertyValues("redis-lock.shedlock.lease=forever")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .hasStackTraceContaining("Failed to bind properties under 'redis-lock.shedlock.lease'")
                .rootCause()
                .hasMessage("No enum constant io.github.redislock.shedlock.ShedLockLease.forever"));
    }

    @Test
    void aShedLockProviderOfTheApplicationsOwnIsKept() {
        net.javacrumbs.shedlock.core.LockProvider own = (configuration) -> Optional.empty();
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withBean("shedLockProvider", net.javacrumbs.shedlock.core.LockProvider.class, () -> own)
            .run((context) -> {
                assertThat(context).doesNotHaveBean(DistributedLockShedLockProvider.class);
                assertThat(context.getBean(net.javacrumbs.shedlock.core.LockProvider.class)).isSameAs(own);
            });
    }

    @Test
    void withoutALockProviderThereIsNone() {
        this.runner.run((context) -> assertThat(context).doesNotHaveBean(DistributedLockShedLockProvider.class));
    }

    @Test
    void redisLockDisabledLeavesShedLockAlone() {
        this.runner.withBean(LockProvider.class, () -> LOCKS)
            .withPropertyValues("redis-lock.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(DistributedLockShedLockProvider.class));
    }
}
