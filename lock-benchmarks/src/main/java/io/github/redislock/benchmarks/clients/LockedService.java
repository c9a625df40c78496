package io.github.redislock.benchmarks.clients;

import io.github.redislock.annotation.DistributedLock;

/**
 * The bean whose methods the annotated benchmarks call: the work is nothing, so all that is measured is
 * what {@code @DistributedLock} adds around a method (proxy, key template, Redis round trips).
 */
public class LockedService {

    /** Fixed 30 s lease, never renewed. */
    @DistributedLock(key = "bench:#id", leaseTime = "30s")
    public long fixedLease(long id) {
        return id;
    }

    /** Renewed lease ({@code redis-lock.lease-time}, renewed while the method runs). */
    @DistributedLock(key = "bench:#id")
    public long renewedLease(long id) {
        return id;
    }
}
