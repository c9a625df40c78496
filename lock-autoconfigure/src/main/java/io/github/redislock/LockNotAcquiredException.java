package io.github.redislock;

import java.time.Duration;
import java.util.List;

/**
 * The lock was held by someone else for the whole wait time, or every take of it within that time came back
 * from the store too late to be used (less than a tenth of its lease left by this JVM's clock: a store slower
 * than the lease allows). Nothing ran under the lock and nothing is left locked by this attempt.
 */
public class LockNotAcquiredException extends LockException {

    private static final long serialVersionUID = 1L;

    private final List<String> keys;

    private final Duration waited;

    public LockNotAcquiredException(List<String> keys, Duration waited) {
        super("Could not acquire lock " + String.join(", ", keys) + " within " + waited.toMillis() + " ms");
        this.keys = List.copyOf(keys);
        this.waited = waited;
    }

    /** The keys in the store (prefix included) that were requested, in the order they were tried. */
    public List<String> getKeys() {
        return this.keys;
    }

    /** How long the caller waited before giving up. */
    public Duration getWaited() {
        return this.waited;
    }
}
