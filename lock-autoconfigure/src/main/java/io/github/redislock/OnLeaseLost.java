package io.github.redislock;

/** What an annotated call does when its lock was lost while the method ran ({@code redis-lock.on-lease-lost}). */
public enum OnLeaseLost {

    /** Log a warning and publish {@link LockLostEvent}; the call returns normally. */
    WARN,

    /**
     * Also throw {@link LockLostException} from the call once the method has returned (its result is
     * discarded; an exception of its own takes precedence).
     */
    THROW
}
