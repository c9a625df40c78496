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
     * The store noticed by itself that the session holding the lock ended: a ZooKeeper session expired (Curator
     * reported the connection LOST, or made a new ZooKeeper handle), which deletes the lock's ephemeral node.
     */
    SESSION
}
