package io.github.redislock.redis;

/**
 * What one run of {@code acquire.lua} found: the lock is now ours (taken free, or taken over from a hand-off
 * to this application), or someone else holds it.
 */
final class Attempt {

    private final boolean acquired;

    private final boolean handedOver;

    private final long value;

    private final long sentAtNanos;

    private Attempt(boolean acquired, boolean handedOver, long value, long sentAtNanos) {
        this.acquired = acquired;
        this.handedOver = handedOver;
        this.value = value;
        this.sentAtNanos = sentAtNanos;
    }

    static Attempt acquired(long fence, boolean handedOver, long sentAtNanos) {
        return new Attempt(true, handedOver, fence, sentAtNanos);
    }

    static Attempt taken(long holderTtlMillis, long sentAtNanos) {
        return new Attempt(false, false, holderTtlMillis, sentAtNanos);
    }

    boolean isAcquired() {
        return this.acquired;
    }

    /** Acquired by taking over a lock a release handed to this application. */
    boolean isHandedOver() {
        return this.handedOver;
    }

    /** The fencing token of an acquired lock. */
    long fence() {
        return this.value;
    }

    /** How long the holder's lease has left when taken, in ms (negative: no expiry, or just expired). */
    long holderTtlMillis() {
        return this.value;
    }

    /** When the attempt was sent ({@link System#nanoTime()}): a lease it set started no earlier. */
    long sentAtNanos() {
        return this.sentAtNanos;
    }

    @Override
    public String toString() {
        return this.acquired ? "acquired, fence " + this.value : "taken, " + this.value + " ms left";
    }
}
