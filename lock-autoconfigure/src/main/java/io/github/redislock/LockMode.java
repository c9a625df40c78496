package io.github.redislock;

/**
 * How a lock shares its key ({@link LockRequest#mode}, {@code @DistributedLock(mode = ...)}).
 * <ul>
 * <li>{@link #WRITE} (the default): the holder is alone on the key, against writers and readers alike. A plain
 * {@code @DistributedLock(key = "doc:1")} is a write lock on {@code doc:1}.</li>
 * <li>{@link #READ}: readers share the key with each other, never with a writer. A writer waits until every reader
 * is gone, and readers arriving while a writer waits queue behind it, so a stream of readers cannot starve it.</li>
 * </ul>
 * Both modes count as one permit; a semaphore ({@link LockRequest#permits} above 1) has no modes.
 */
public enum LockMode {

    /** Exclusive: nobody else, reader or writer, holds the key at the same time. */
    WRITE,

    /** Shared with other readers, never with a writer. */
    READ
}
