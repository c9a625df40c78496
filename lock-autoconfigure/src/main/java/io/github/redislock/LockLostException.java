package io.github.redislock;

/**
 * The lock was lost while the guarded work ran, so the work may have overlapped with another holder's.
 * Thrown by an annotated call when {@code redis-lock.on-lease-lost=throw} (after the method returned; its
 * result is discarded), and always by a transaction commit that began under the lock, which it rolls back.
 */
public class LockLostException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String key;

    public LockLostException(String key, String message) {
        super(message);
        this.key = key;
    }

    /** The key of the lost lock in its store, prefix included. */
    public String getKey() {
        return this.key;
    }
}
