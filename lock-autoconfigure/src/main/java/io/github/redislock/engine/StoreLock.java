package io.github.redislock.engine;

/**
 * One key held in a {@link LockStore} by one acquisition that went to the store. The engine shares it among the
 * nested acquisitions of the owning thread and releases it once, when the outermost one ends. Internal.
 */
public interface StoreLock {

    /** The store's key, key prefix included. */
    String key();

    /** The value the store keeps for this holder, as {@link io.github.redislock.LockHandle#token()}. */
    String token();

    /** As {@link io.github.redislock.LockHandle#fencingToken()}. */
    long fencingToken();

    /** As {@link io.github.redislock.LockHandle#isHeld()}, leaving out the handle's own closing. */
    boolean isHeld();

    /** As {@link io.github.redislock.LockHandle#isLost()}. */
    boolean isLost();

    /** As {@link io.github.redislock.LockHandle#verifyHeld()}. */
    boolean verifyHeld();

    /**
     * Releases the key, once (the engine never calls it twice): deletes or hands it on if it still holds this
     * lock's value, or, with {@code keepMillis} above 0, keeps it in the store, owned by nobody, for that long
     * (holdAtLeast). Finding the key no longer ours marks the lock lost and signals it; that is not an error.
     * @throws io.github.redislock.LockException if the store cannot be reached (the key expires with its lease)
     */
    void release(long keepMillis);
}
