package io.github.redislock.annotation;

import io.github.redislock.LockNotAcquiredException;

/** What an annotated method does when its lock is not acquired within the wait time. */
public enum OnLockFailure {

    /** Throw {@link LockNotAcquiredException} (or call the fallback method, if one is declared). */
    THROW,

    /**
     * Do not run the method; return {@code null}, or {@code Optional.empty()} for an {@code Optional}
     * return type. Not allowed on methods returning a primitive.
     */
    SKIP
}
