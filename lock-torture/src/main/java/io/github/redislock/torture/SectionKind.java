package io.github.redislock.torture;

/** The ways a worker takes its locks, mixed at random in every thread (but {@link #LEADER}, alone in its workload). */
enum SectionKind {

    /** {@code @DistributedLock} with the configured lease, renewed while the method runs. */
    RENEWED,

    /** The template with a fixed lease that is never renewed. */
    FIXED,

    /** {@code @DistributedLock} whose method calls another {@code @DistributedLock} method on the same key. */
    REENTRANT,

    /** The template with two keys at once. */
    MULTI_KEY,

    /**
     * The template with a renewed lease, on a resource of its own ({@link #SLOW_RESOURCE}) that one extra thread
     * of every worker takes in turn, working one and a half leases inside: sections that span renewals, and that
     * are still running when a fault ends.
     */
    LONG,

    /**
     * A {@code @LeaderOnly} method, in the leader election workload ({@link Workload#LEADER}): it runs only while
     * the worker leads the election, on {@link #LEADER_RESOURCE}, with the term as its fencing token.
     */
    LEADER;

    /** The resource of {@link #LONG} sections. */
    static final String SLOW_RESOURCE = "slow";

    /** The resource of {@link #LEADER} sections: what the election's leader writes. */
    static final String LEADER_RESOURCE = "leader";
}
