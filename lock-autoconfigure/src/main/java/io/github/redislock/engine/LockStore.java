package io.github.redislock.engine;

import org.jspecify.annotations.Nullable;

/**
 * Where locks are kept: the store SPI under {@link LockEngine}. A store takes and releases one key at a time;
 * the engine decides everything that spans keys or acquisitions (reentrancy, multi-key, holdAtLeast). Each
 * store states its guarantees in its own Javadoc. Internal: used by the stores of this library, not part of its
 * API.
 */
public interface LockStore {

    /**
     * The store's key for a lock name: the key prefix added and the store's key rules checked, before anything
     * is sent.
     * @throws io.github.redislock.LockException if the name makes a key the store refuses
     */
    String key(String name);

    /**
     * Takes one key, waiting as the store waits (queues, retries, watches) until {@code deadlineNanos}
     * ({@link System#nanoTime()}; compare as {@code deadline - now}, the sum may have wrapped).
     * @param leaseMillis the lease of the lock
     * @param renewed whether the store keeps the lease alive until the lock is released
     * @return the lock, or {@code null} when the key stayed taken by someone else until the deadline (nothing is
     * then held)
     * @throws io.github.redislock.LockException if the store fails or the thread is interrupted (nothing is then
     * held)
     */
    @Nullable StoreLock take(String key, long leaseMillis, boolean renewed, long deadlineNanos);

    /**
     * Reads the store now and says who holds the key, whichever application that is: the cluster-wide holder
     * view behind {@code GET /actuator/redislocks/{key}}. The contract, for every store:
     * <ul>
     * <li>Read-only, and nothing on the hot path: the holder is named from what the store already keeps for the
     * lock (for Redis, the owner part of the key's value), looked up in an instance registry that each instance
     * writes when it starts, refreshes well within a TTL (or an ephemeral lifetime) and removes when it stops, so
     * that the entries of dead instances vanish by themselves. Taking and releasing locks writes nothing more.</li>
     * <li>An owner the registry does not know (a crashed instance whose entry expired, another version of the
     * library, a value some other client wrote) is {@link LockInspection.Holder#UNKNOWN}, never an error.
     * Whatever is read back is checked for the store's own forms before it names anything (another client may
     * have written anything), and registry names are derived only from such checked values, in the library's
     * reserved namespace, never from the caller's text.</li>
     * <li>A store of several nodes answers what a majority says; when no state has a majority, the key is
     * {@link LockInspection.State#OTHER}.</li>
     * <li>{@code waiting} counts applications queued in the store when it keeps a queue, else {@code null}.</li>
     * </ul>
     * The default answers {@code OTHER} with nothing known, for a store that cannot tell.
     * @param key the store's key ({@link #key})
     * @throws io.github.redislock.LockException if the store (or, for several nodes, a majority) cannot be reached
     */
    default LockInspection inspect(String key) {
        return new LockInspection(key, LockInspection.State.OTHER, null, null, null, null, null);
    }
}
