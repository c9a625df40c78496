package io.github.redislock;

/** How a lost lock was noticed. */
public enum LockLossDetection {

    /**
     * A lease renewal found the store no longer holding the lock for its holder (gone, or another's), or could not
     * get an extension confirmed before the lease ran out by this JVM's clock (the store unreachable; on Redlock,
     * no majority of the nodes).
     */
    RENEWAL,

    /**
     * The release found the store no longer holding the lock for its holder: the lease ran out before the
     * work ended.
     */
    RELEASE,

    /** The check against the store just before a transaction commits found the lock no longer ours. */
    COMMIT_CHECK,

    /**
     * The store noticed by itself, not asked by a renewal, release or check, that it no longer holds the key: a
     * session that kept the lock ended (ZooKeeper). Lease-based stores (Redis, Redlock) report RENEWAL, RELEASE
     * or COMMIT_CHECK.
     */
    SESSION
}
