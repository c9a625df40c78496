package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A read-only snapshot of one application's lock engine, for the Actuator endpoint and gauges: the keys it
 * holds, the keys its threads wait for, and how renewal fares. Taken without stopping the engine, so the parts
 * may be a moment apart. Store SPI: what {@link LockEngine#state()} answers, read by the endpoint and the meters;
 * fields may be added.
 * @param held the keys this application holds in Redis now
 * @param waiting per key this application's threads wait for, how many threads wait
 * @param renewal how lease renewal fares
 * @param kept the keys this application keeps in Redis after their work ended (holdAtLeast), by no thread
 */
public record LockEngineState(List<HeldKey> held, Map<String, Integer> waiting, Renewal renewal,
        List<KeptKey> kept) {

    /** A snapshot with no key kept after its work ended. */
    public LockEngineState(List<HeldKey> held, Map<String, Integer> waiting, Renewal renewal) {
        this(held, waiting, renewal, List.of());
    }

    /**
     * One key kept in Redis after its work ended, because holdAtLeast had not passed yet: held by this
     * application in Redis, by no thread, not renewed, until it expires.
     * @param key the Redis key (key prefix included)
     * @param fencingToken the fencing token of the acquisition whose work ended
     * @param heldSince when it was taken (from this JVM's clock)
     * @param keptUntil when it expires in Redis, at the latest (from this JVM's clock)
     */
    public record KeptKey(String key, long fencingToken, Instant heldSince, Instant keptUntil) {
    }

    /**
     * One key held.
     * @param key the Redis key (key prefix included)
     * @param fencingToken the fencing token of the acquisition
     * @param heldSince when it was taken (from this JVM's clock, at the moment the acquire was sent)
     * @param leaseTime the lease: renewed for as long as it is held, or fixed
     * @param renewed whether the lease is renewed (false: a fixed lease that runs out)
     * @param leaseStartedAt when the current lease began (the last successful renewal, or the acquire)
     * @param thread the name of the thread that took it
     * @param holds how many nested (reentrant) acquisitions share it
     * @param sharing how it is held: a write (exclusive) lock, a read lock, or one permit of a semaphore (a shared
     * key held by several threads here is listed once per holder)
     */
    public record HeldKey(String key, long fencingToken, Instant heldSince, Duration leaseTime, boolean renewed,
            Instant leaseStartedAt, String thread, int holds, Sharing sharing) {

        /** An exclusive lock. */
        public HeldKey(String key, long fencingToken, Instant heldSince, Duration leaseTime, boolean renewed,
                Instant leaseStartedAt, String thread, int holds) {
            this(key, fencingToken, heldSince, leaseTime, renewed, leaseStartedAt, thread, holds, Sharing.EXCLUSIVE);
        }
    }

    /**
     * How lease renewal fares.
     * @param period how often renewed locks are renewed
     * @param failing whether the last renewal round failed (Redis unreachable): leases are then not extended
     * @param lastSuccess when the last round succeeded, {@code null} before the first
     * @param lastFailure when the last round failed, {@code null} if none did
     * @param lastError what the last failed round reported, {@code null} if none failed
     * @param failedRounds how many rounds failed since the application started
     */
    public record Renewal(Duration period, boolean failing, @Nullable Instant lastSuccess,
            @Nullable Instant lastFailure, @Nullable String lastError, long failedRounds) {
    }
}
