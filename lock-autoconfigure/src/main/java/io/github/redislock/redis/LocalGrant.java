package io.github.redislock.redis;

/**
 * A lock that a holder passed straight to the next waiting thread of its own application, with no Redis round
 * trip (cohort hand-over): the key in Redis keeps holding {@code value} throughout, and this application keeps
 * the lock until a release finally goes to Redis.
 * @param value what the key holds in Redis, shared by every holder of the cohort
 * @param fence the fencing token of the holder that passed the lock on; the next holder's is one more
 * @param renewed whether the lease was kept alive by renewal
 * @param leaseMillis the lease the key was last set or renewed with
 * @param expiresAtNanos until when the key surely holds the value, by this JVM's clock
 * @param handovers how many local hand-overs this one makes since the key was taken in Redis
 * @param tenureStartNanos when the key was taken in Redis ({@link System#nanoTime()})
 */
record LocalGrant(String value, long fence, boolean renewed, long leaseMillis, long expiresAtNanos, int handovers,
        long tenureStartNanos) {
}
