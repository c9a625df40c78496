package io.github.redislock.redis;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * When a first waiter looks at Redis without being told to. Hand-off messages only make waiting fast: the first
 * waiter of a queued application also looks when the holder's lease would end (an expiry hands nothing on) and
 * at least once per {@link #maxUnnotifiedWaitNanos}, which finds a hand-off whose message was lost and keeps the
 * application's queue entry (valid three times that long) alive.
 */
final class TimedLooks {

    /** Longest a first waiter goes without looking at Redis, unless the store is built with another bound. */
    static final Duration DEFAULT_MAX_UNNOTIFIED_WAIT = Duration.ofSeconds(1);

    /** Longest a first waiter goes without looking at Redis (bounds the cost of a lost message). */
    private volatile long maxUnnotifiedWaitNanos = DEFAULT_MAX_UNNOTIFIED_WAIT.toNanos();

    /** The longest a waiter parks before it looks again (at Redis if it is first). */
    long maxUnnotifiedWaitNanos() {
        return this.maxUnnotifiedWaitNanos;
    }

    /**
     * How long to wait for a hand-off before looking at Redis anyway: until the holder's lease runs out, with
     * jitter so applications do not all look at the same instant, and never longer than the bound, in case a
     * message was lost and to keep the queue entry fresh.
     * @param ttlMillis the holder's time to live as the attempt found it; -1 for none
     */
    long untilHolderExpires(long ttlMillis) {
        if (ttlMillis < 0) {
            // -1: the key has no expiry at all (someone else's lock without a lease): only a release ends it.
            return this.maxUnnotifiedWaitNanos;
        }
        long ttl = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long jitter = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2) + 1);
        return Math.min(ttl + jitter, this.maxUnnotifiedWaitNanos);
    }

    /** How long a queue entry lives unrefreshed: it outlives three missed refreshes. */
    long queueEntryMillis() {
        return Math.max(1000, 3 * TimeUnit.NANOSECONDS.toMillis(this.maxUnnotifiedWaitNanos));
    }

    /** Tests: how long a first waiter may go without a hand-off before looking at Redis anyway. */
    void maxUnnotifiedWait(Duration wait) {
        this.maxUnnotifiedWaitNanos = wait.toNanos();
    }
}
