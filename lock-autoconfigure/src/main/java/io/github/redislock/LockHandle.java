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

    /** The key of the lock in its store, key prefix included. */
    String key();

    /**
     * The value the store keeps for this holder while this handle holds the lock: random and new for every
     * acquisition that went to the store (the Redis stores' form is in the reference guide, docs/topologies.md).
     * A lock passed straight from another thread of this application keeps the value it had, so use
     * {@link #fencingToken()}, not this, to tell holders apart.
     */
    String token();

    /**
     * The fencing token of this acquisition: a number that strictly increases with every acquisition of the
     * same key, across all clients, under the conditions the lock's store states (for the Redis stores: see
     * docs/topologies.md). Hand it to the resource the lock protects and let that reject writes carrying a
     * smaller number than one it has already seen; that stops a holder that paused past its lease from
     * overwriting the work of the next holder.
     */
    long fencingToken();

    /**
     * Whether this handle still holds the lock as far as the client can tell: true from acquisition until
     * {@link #close()}, until the lease has run out by this JVM's clock since the last successful acquire or
     * renewal, or until a renewal, release, check or the store itself found the lock no longer ours,
     * whichever comes first. It turns false at once on such a finding, but between renewals it cannot see a
     * lock removed or overwritten in the store behind the client's back.
     */
    boolean isHeld();

    /**
     * Whether the lock is known to be lost: a renewal, the release, a check or the store itself found the
     * store no longer holding the lock for this handle (its lease ran out, or it was removed). Another holder
     * may then have run the same critical section; {@code LockLostEvent} says so too.
     */
    boolean isLost();

    /**
     * Asks the store, now, whether it still holds the lock for this handle; if not, the lock is marked lost
     * and the loss signalled. One round trip to the store.
     * @throws LockException if the store cannot be reached
     */
    boolean verifyHeld();

    /**
     * Releases the lock, only if the store still holds it for this handle: the store frees it, or hands it
     * straight to the next waiter where it queues them. Never throws for a lock that is already gone (expired,
     * or taken by another holder after expiry); such a release removes nothing and logs a warning. Throws
     * {@link LockException} only if the store cannot be reached; the lock then ends with its lease.
     */
    @Override
    void close();
}
