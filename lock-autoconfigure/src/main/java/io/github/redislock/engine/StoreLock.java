package io.github.redislock.engine;

/**
 * One key held in a {@link LockStore} by one acquisition that went to the store. The engine shares it among the
 * nested acquisitions of the owning thread, keeps its lease clock and lost state, and releases it once, when the
 * outermost one ends. Store SPI: see the package documentation.
 */
public interface StoreLock {

    /** The store's key, key prefix included. */
    String key();

    /** The value the store keeps for this holder, as {@link io.github.redislock.LockHandle#token()}. */
    String token();

    /** Strictly increasing per key across holders, as {@link io.github.redislock.LockHandle#fencingToken()}. */
    long fencingToken();

    /**
     * {@link System#nanoTime()} when the store sent the request that took the lock: the engine's local lease
     * clock counts from here. A store that extends a lease by itself (a Redis lock passed on within the
     * application, extended to its new holder's lease) may move it later; the engine counts from the later of
     * this and its own last extension.
     */
    long leaseStartNanos();

    /**
     * Store-side state beyond the lease: false while the store cannot vouch for the lock (a ZooKeeper connection
     * suspended). The engine's {@code isHeld()} is: not closed, not lost, valid, and (leased stores) the lease
     * not run out by the local clock.
     */
    default boolean isValid() {
        return true;
    }

    /**
     * Reads the store now.
     * @return true if it still holds this lock; false otherwise (the engine marks it lost, detection
     * COMMIT_CHECK)
     * @throws io.github.redislock.LockException if the store cannot be reached
     */
    boolean verify();

    /**
     * Releases once (the engine never calls it twice): deletes or hands the key on if it still holds this lock,
     * or, with {@code keepMillis} above 0, keeps it owned by nobody for that long (holdAtLeast).
     * @return false when the key was found no longer this lock's (the engine marks it lost, detection RELEASE,
     * unless it was lost already); that is not an error
     * @throws io.github.redislock.LockException if the store cannot be reached (the key expires with its lease,
     * or goes with the session)
     */
    boolean release(long keepMillis);
}
