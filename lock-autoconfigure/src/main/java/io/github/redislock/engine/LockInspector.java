package io.github.redislock.engine;

/**
 * Answers who holds a lock now, anywhere: the cluster-wide holder view of a lock provider, for the Actuator
 * endpoint. Internal.
 */
@FunctionalInterface
public interface LockInspector {

    /**
     * Reads the store now (see {@link LockStore#inspect}).
     * @param name the lock name as the application names it; the key prefix is added and the key rules checked
     * @throws io.github.redislock.LockException if the name makes a key the store refuses, or the store cannot
     * be reached
     */
    LockInspection inspect(String name);
}
