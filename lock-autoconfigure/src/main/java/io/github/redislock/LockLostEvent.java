package io.github.redislock;

import java.time.Instant;

import org.springframework.context.ApplicationEvent;

/**
 * Published when a lock this application held turned out not to be held any more: its lease ran out (a
 * pause longer than the lease, the store unreachable through the renewals, a fixed lease shorter than the
 * work) or the store lost it (a restart, failover or eviction deleted or overwrote it; the reference
 * guide's docs/topologies.md has the cases per store). From that moment another holder may be running the
 * same critical section. Listen with {@code @EventListener} to alert, compensate or stop the work; the
 * holder's {@link LockHandle#isHeld()} is already false.
 * <p>
 * Published on the thread that noticed: the renewal scheduler, the releasing thread or the committing one.
 */
public class LockLostEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String key;

    private final String token;

    private final long fencingToken;

    private final Instant detectedAt;

    private final LockLossDetection detection;

    public LockLostEvent(Object source, String key, String token, long fencingToken, Instant detectedAt,
            LockLossDetection detection) {
        super(source);
        this.key = key;
        this.token = token;
        this.fencingToken = fencingToken;
        this.detectedAt = detectedAt;
        this.detection = detection;
    }

    /** The key of the lost lock in its store, prefix included. */
    public String getKey() {
        return this.key;
    }

    /** The token the store kept for this application's holder ({@link LockHandle#token()}). */
    public String getToken() {
        return this.token;
    }

    /** The fencing token of the lost acquisition. */
    public long getFencingToken() {
        return this.fencingToken;
    }

    /** When the loss was noticed (not when it happened, which was at most one renewal period earlier). */
    public Instant getDetectedAt() {
        return this.detectedAt;
    }

    public LockLossDetection getDetection() {
        return this.detection;
    }

    @Override
    public String toString() {
        return "LockLostEvent[key=" + this.key + ", fencingToken=" + this.fencingToken + ", detection="
                + this.detection + ", at=" + this.detectedAt + "]";
    }
}
