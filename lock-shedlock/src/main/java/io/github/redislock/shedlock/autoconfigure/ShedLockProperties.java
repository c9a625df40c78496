package io.github.redislock.shedlock.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import io.github.redislock.shedlock.ShedLockLease;

/** How the auto-configured ShedLock provider takes ShedLock's locks. */
@ConfigurationProperties("redis-lock.shedlock")
public class ShedLockProperties {

    /**
     * The lease of ShedLock's locks: "lock-at-most-for", a fixed lease of each job's lockAtMostFor, as ShedLock's
     * own providers; or "renewed", the engine's redis-lock.lease-time renewed while the job runs, so that a job
     * longer than its lockAtMostFor keeps its lock and a crashed instance's lock ends within one lease.
     */
    private ShedLockLease lease = ShedLockLease.LOCK_AT_MOST_FOR;

    public ShedLockLease getLease() {
        return this.lease;
    }

    public void setLease(ShedLockLease lease) {
        this.lease = lease;
    }
}
