package io.github.redislock.shedlock;

/**
 * What lease a {@link DistributedLockShedLockProvider} gives ShedLock's locks: ShedLock's own fixed
 * {@code lockAtMostFor}, or the engine's renewed lease.
 */
public enum ShedLockLease {

    /**
     * A fixed lease of the job's {@code lockAtMostFor}, as every ShedLock provider does: the lock ends when it runs
     * out, even if the job still runs (another instance may then start the job too; its holder is told by a
     * {@code LockLostEvent} when the release finds the lock gone). The default: what ShedLock users configured.
     */
    LOCK_AT_MOST_FOR,

    /**
     * The engine's renewed lease ({@code redis-lock.lease-time}), renewed every third of it while the job runs:
     * a job longer than its {@code lockAtMostFor} keeps its lock, and a crashed instance's lock ends within one
     * lease. {@code lockAtMostFor} is then not used, except by an extension ({@code LockExtender}), which gives the
     * lock a fixed lease of the extension's {@code lockAtMostFor} from then on.
     */
    RENEWED
}
