package io.github.redislock;

/**
 * One acquired lock. Close it to release; use it in a try-with-resources block:
 *
 * <pre>{@code
 * Optional<LockHandle> lock = template.tryAcquire("report:daily", Duration.ZERO, null);
 * if (lock.isPresent()) {
 *     try (LockHandle handle = lock.get()) {
 *         // exclusive while handle.isHeld()
 *     }
 * }
 * }</pre>
 *
 * A handle belongs to the code that acquired it; it is safe to close from another thread, and closing it
 * twice is harmless.
 */
public interface LockHandle extends AutoCloseable {

    /** The Redis key of the lock, key prefix included. */
    String key();

    /**
     * The value stored under the key while this handle holds it: {@code <token>:<fencing token>}, where the
     * token is random and new for every acquisition that went to Redis (a lock handed over by a release is
     * rewritten to it when taken over). A lock passed straight from another thread of this application keeps
     * the value it had, so use {@link #fencingToken()}, not this, to tell holders apart.
     */
    String token();

    /**
     * The fencing token of this acquisition: a number that strictly increases with every acquisition of the
     * same key, across all clients, as long as the Redis server's clock does not step back (which lease
     * expiry relies on as well): it is Redis time in microseconds, or one more than the previous holder's
     * token when a release hands the lock straight on. Hand it to the store the lock protects and let the
     * store reject writes carrying a smaller number than one it has already seen; that stops a holder that
     * paused past its lease from overwriting the work of the next holder.
     */
    long fencingToken();

    /**
     * Whether this handle still holds the lock as far as the client can tell: true from acquisition until
     * {@link #close()}, until the lease has run out by this JVM's clock since the last successful acquire or
     * renewal, or until a renewal, release or check found the key no longer ours, whichever comes first. It
     * turns false at once on such a finding, but between renewals it cannot see a key deleted or overwritten
     * behind the client's back.
     */
    boolean isHeld();

    /**
     * Whether the lock is known to be lost: a renewal, the release or a check found the key no longer
     * holding this handle's value (its lease ran out, or it was removed). Another holder may then have run
     * the same critical section; {@code LockLostEvent} says so too.
     */
    boolean isLost();

    /**
     * Asks Redis, now, whether the key still holds this handle's value; if not, the lock is marked lost
     * and the loss signalled. One round trip.
     * @throws LockException if Redis cannot be reached
     */
    boolean verifyHeld();

    /**
     * Releases the lock: hands it to the next waiting application, or deletes the key, only if it still holds
     * this handle's value. Never throws for a lock
     * that is already gone (expired, or taken by another holder after expiry); such a release deletes
     * nothing and logs a warning. Throws {@link LockException} only if Redis cannot be reached; the key
     * then expires with its lease.
     */
    @Override
    void close();
}
