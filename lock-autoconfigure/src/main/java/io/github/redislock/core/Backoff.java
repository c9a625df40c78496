package io.github.redislock.core;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Pause between two acquisition attempts while waiting: exponential from 2 ms to 64 ms with "equal
 * jitter" (half fixed, half random), so waiters on one key spread out instead of retrying in lock step,
 * and never longer than the time left to wait.
 */
final class Backoff {

    private static final long MIN_NANOS = 2_000_000L;

    private static final long MAX_NANOS = 64_000_000L;

    private Backoff() {
    }

    /** The pause before attempt number {@code attempt + 1} (attempt counts from 0). */
    static long pauseNanos(int attempt, long remainingNanos) {
        long ceiling = Math.min(MAX_NANOS, MIN_NANOS << Math.min(attempt, 5));
        long half = ceiling / 2;
        long pause = half + ThreadLocalRandom.current().nextLong(half + 1);
        return Math.max(0, Math.min(pause, remainingNanos));
    }
}
