package io.github.redislock;

/**
 * Takes locks for {@link DistributedLockTemplate} and {@code @DistributedLock}: the seam between the front end
 * and the lock engine. The starter's implementation takes them in the store it is configured with (a single
 * Redis, or Redlock over several Redis masters; see docs/topologies.md); define a bean of this type to put
 * another in its place.
 */
@FunctionalInterface
public interface LockProvider {

    /**
     * Takes every key of the request, waiting up to its wait time in all.
     * @return the handle, to be closed by the caller
     * @throws LockNotAcquiredException if a key stayed taken for the whole wait time (nothing is then held)
     * @throws LockException if the store fails, a key is invalid, or the thread is interrupted (nothing is
     * then held)
     */
    LockHandle acquire(LockRequest request);
}
