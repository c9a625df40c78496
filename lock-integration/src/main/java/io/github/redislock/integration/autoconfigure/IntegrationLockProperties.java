package io.github.redislock.integration.autoconfigure;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** The auto-configured {@code DistributedLockRegistry}. */
@ConfigurationProperties("redis-lock.integration")
public class IntegrationLockProperties {

    /**
     * The lease of locks taken by lock() and tryLock() (Spring Integration's expireAfter), renewed every third of it
     * while held: a crashed holder's lock ends within it. From 3 ms to 30 days.
     */
    private Duration leaseTime = Duration.ofSeconds(30);

    public Duration getLeaseTime() {
        return this.leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }
}
