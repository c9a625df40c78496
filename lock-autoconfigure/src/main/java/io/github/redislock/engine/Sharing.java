package io.github.redislock.engine;

import io.github.redislock.LockException;
import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;

/**
 * How one acquisition shares its key, as the store is asked to keep it: an exclusive (write) lock, a read lock, or
 * one permit of a semaphore of {@code permits}. Store SPI (see the package documentation).
 * <p>
 * Two kinds of key, never mixed on one key at the same time:
 * <ul>
 * <li>a read/write key: {@link #EXCLUSIVE} (one writer, nobody beside it) and {@link #READ} (readers together, no
 * writer beside them);</li>
 * <li>a semaphore of N (N &gt; 1): at most N holders at once, each holding one permit.</li>
 * </ul>
 * A store asked for one kind while the key is held or awaited as the other, or as a semaphore of another size,
 * fails the take with {@link #mismatch}, holding nothing: the later caller learns both counts.
 * @param mode {@link LockMode#WRITE} or {@link LockMode#READ}
 * @param permits 1 for a read/write key, more for a semaphore (then always {@link LockMode#WRITE})
 */
public record Sharing(LockMode mode, int permits) {

    /** An exclusive lock: today's lock, and a write lock. */
    public static final Sharing EXCLUSIVE = new Sharing(LockMode.WRITE, 1);

    /** A read lock: shared with readers only. */
    public static final Sharing READ = new Sharing(LockMode.READ, 1);

    /**
     * @throws IllegalArgumentException if permits is below 1, or above 1 for a read lock (a semaphore has no modes)
     */
    public Sharing {
        if (mode == null) {
            throw new IllegalArgumentException("mode must not be null");
        }
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1: " + permits);
        }
        if (permits > 1 && mode == LockMode.READ) {
            throw new IllegalArgumentException("A read lock has no permit count (permits " + permits
                    + "): readers share a key without a limit; use permits with mode WRITE for a semaphore");
        }
    }

    /** What the request asks for. */
    public static Sharing of(LockRequest request) {
        if (request.permits() > 1) {
            return new Sharing(LockMode.WRITE, request.permits());
        }
        return (request.mode() == LockMode.READ) ? READ : EXCLUSIVE;
    }

    /** One permit of a semaphore of {@code permits} (1: {@link #EXCLUSIVE}). */
    public static Sharing permits(int permits) {
        return (permits == 1) ? EXCLUSIVE : new Sharing(LockMode.WRITE, permits);
    }

    /** Alone on the key: a write lock, today's lock. */
    public boolean isExclusive() {
        return this.permits == 1 && this.mode == LockMode.WRITE;
    }

    /** A read lock. */
    public boolean isRead() {
        return this.mode == LockMode.READ;
    }

    /** One permit of a semaphore of more than one. */
    public boolean isSemaphore() {
        return this.permits > 1;
    }

    /** Whether holders of this and of {@code other} may use one key (wait for each other) rather than mismatch. */
    public boolean sharesKeyWith(Sharing other) {
        return this.permits == other.permits;
    }

    /** "a write lock", "a read lock", "a semaphore of 5 permits": for messages. */
    public String describe() {
        if (isSemaphore()) {
            return "a semaphore of " + this.permits + " permits";
        }
        return isRead() ? "a read lock" : "a write lock";
    }

    /**
     * The one failure every store throws when a key is held or awaited as {@code held} and a take asks for
     * {@code this} with another permit count: names both counts and the fix.
     */
    public LockException mismatch(String key, Sharing held) {
        return new LockException("Lock '" + key + "' is in use as " + held.describe() + " (" + held.permits()
                + (held.permits() == 1 ? " permit" : " permits") + "), but this request asks for " + describe()
                + " (" + this.permits + (this.permits == 1 ? " permit" : " permits")
                + "): every user of one key must ask for the same number of permits");
    }

    @Override
    public String toString() {
        return describe();
    }
}
