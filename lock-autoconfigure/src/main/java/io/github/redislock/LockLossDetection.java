package io.github.redislock;

/** How a lost lock was noticed. */
public enum LockLossDetection {

    /** A lease renewal found the key gone or holding another token. */
    RENEWAL,

    /** The release found the key gone or holding another token: the lease ran out before the work ended. */
    RELEASE,

    /** The check against Redis just before a transaction commits found the lock no longer ours. */
    COMMIT_CHECK,

    /**
     * The store noticed by itself, not asked by a renewal, release or check, that it no longer holds the key: a
     * session that kept the lock ended (ZooKeeper). Lease-based stores (Redis, Redlock) report RENEWAL, RELEASE
     * or COMMIT_CHECK.
     */
    SESSION
}
