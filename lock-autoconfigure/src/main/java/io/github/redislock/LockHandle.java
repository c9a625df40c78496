package io.github.redislock;

import java.time.Duration;

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
     * Extends this held lock: {@link #extend(Duration, Duration)} with no new minimum.
     */
    default boolean extend(Duration lease) {
        return extend(lease, Duration.ZERO);
    }

    /**
     * Extends this held lock to a fixed lease of {@code lease} counted from this call: the store sets the lock's
     * lease to that length (shorter or longer than before), and {@link #isHeld()} follows the new lease by this
     * JVM's clock. It is a fixed lease from then on, whatever the lock had: a renewed lock stops being renewed
     * (waiting for a renewal round under way, if any), so the lock ends at most {@code lease} after this call
     * unless it is extended again or released first. It does what ShedLock's {@code SimpleLock.extend} and
     * Spring Integration's {@code renewLock(key, ttl)} do.
     * <ul>
     * <li>A lock still held, its lease not run out by this JVM's clock: one round trip to the store (a
     * compare-and-extend, as renewal sends; on Redlock, to every node), then true.</li>
     * <li>A lock already lost, a lease that has run out by this JVM's clock (nothing is sent then), or one the store
     * no longer holds: false, and the lock is lost: marked and signalled once ({@code LockLostEvent}, detection
     * RENEWAL), as if a renewal had found it. Extending never makes a lost lock held again.</li>
     * <li>ZooKeeper, whose fixed lease is a timer in the holder's application (a node lasts as long as its
     * session): the node is checked in ZooKeeper and the timer set to the new lease from the call.</li>
     * <li>{@code holdAtLeast} above zero: when released, the key is kept until at least that long after this call
     * (or longer, if the acquisition asked for more), as ShedLock's {@code lockAtLeastFor} of an extension.</li>
     * <li>Several keys (a multi-key handle): each key is extended in turn; true if every one was, else the keys
     * not extended are lost.</li>
     * </ul>
     * @param lease the new lease, from 1 ms to {@link LockRequest#MAX_LEASE}
     * @param holdAtLeast how long after this call the key stays taken at least, from zero to {@code lease}
     * @return whether the lock is held with the new lease
     * @throws IllegalArgumentException if the lease or the minimum is out of range
     * @throws IllegalStateException if this handle was closed
     * @throws LockException if the store cannot be reached or cannot tell: the lock then keeps whichever of its
     * old and new lease ends first, and a renewed lock is renewed again
     * @throws UnsupportedOperationException if the handle is not one of this library's (a {@link LockProvider}
     * of the application's own, whose handles do not implement it)
     */
    default boolean extend(Duration lease, Duration holdAtLeast) {
        throw new UnsupportedOperationException(getClass().getName() + " does not implement extend; the handles of "
                + "this library's LockEngine do");
    }

    /**
     * Releases the lock, only if the store still holds it for this handle: the store frees it, or hands it
     * straight to the next waiter where it queues them. Never throws for a lock that is already gone (expired,
     * or taken by another holder after expiry); such a release removes nothing and logs a warning. Throws
     * {@link LockException} only if the store cannot be reached; the lock then ends with its lease.
     */
    @Override
    void close();
}
