package io.github.redislock;

/** How a lost lock was noticed. */
public enum LockLossDetection {

    /** A lease renewal found the store no longer holding the lock for its holder (gone, or another's). */
    RENEWAL,

    /**
     * The release found the store no longer holding the lock for its holder: the lease ran out before the
     * work ended.
     */
    RELEASE,

    /** The check against the store just before a transaction commits found the lock no longer ours. */
    COMMIT_CHECK
}
