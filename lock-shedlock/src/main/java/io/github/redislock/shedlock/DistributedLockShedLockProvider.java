package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * ShedLock's {@link net.javacrumbs.shedlock.core.LockProvider} over this library's {@link LockProvider}: a
 * ShedLock application keeps its {@code @SchedulerLock} annotations and takes its locks in the application's store
 * (one Redis, Redlock, ZooKeeper), with its meters, endpoint, fencing tokens and {@code LockLostEvent}s.
 * <ul>
 * <li>{@link #lock}: the lock named by the job's name (the store's key prefix added), taken at once or not at
 * all (an empty result: another instance runs the job). {@code lockAtMostFor} is a fixed lease, or, with
 * {@link ShedLockLease#RENEWED}, the engine's renewed lease instead; {@code lockAtLeastFor} is holdAtLeast: a
 * job that ends sooner leaves the key kept, by nobody, until that long after the lock was taken.</li>
 * <li>Not reentrant, as ShedLock's providers are not: a second {@code lock} of a held name fails, on the same
 * thread too (ShedLock's executor keeps its own reentrancy above the provider).</li>
 * <li>{@link SimpleLock#extend} ({@code LockExtender}): {@link LockHandle#extend(Duration, Duration)}, a fixed
 * lease of the new {@code lockAtMostFor} from the call, and the new {@code lockAtLeastFor} counted from the call;
 * the old {@code SimpleLock} is spent and the new one returned. A lock already lost extends to an empty result,
 * and is released.</li>
 * <li>{@link SimpleLock#unlock}: releases (or keeps, for lockAtLeastFor); a lock lost meanwhile is reported as the
 * engine reports every loss, never thrown to ShedLock.</li>
 * <li>A store that cannot be reached fails {@code lock} with {@link io.github.redislock.LockException}, which
 * ShedLock passes on to the scheduler (the run fails, the next one tries again).</li>
 * </ul>
 */
public class DistributedLockShedLockProvider implements ExtensibleLockProvider {

    private final LockProvider locks;

    private final ShedLockLease lease;

    /** ShedLock's locks with a fixed lease of their {@code lockAtMostFor}. */
    public DistributedLockShedLockProvider(LockProvider locks) {
        this(locks, ShedLockLease.LOCK_AT_MOST_FOR);
    }

    /**
     * @param locks where the locks are taken: the application's {@link LockProvider} (a {@code LockEngine})
     * @param lease whether {@code lockAtMostFor} is the lease, or the engine's renewed lease is
     */
    public DistributedLockShedLockProvider(LockProvider locks, ShedLockLease lease) {
        if (locks == null || lease == null) {
            throw new IllegalArgumentException("A ShedLock provider needs a LockProvider and a ShedLockLease, got "
                    + locks + " and " + lease);
        }
        this.locks = locks;
        this.lease = lease;
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        @Nullable Duration fixed = (this.lease == ShedLockLease.RENEWED) ? null : configuration.getLockAtMostFor();
        LockRequest request = LockRequest.of(configuration.getName(), Duration.ZERO, fixed)
            .nonReentrant()
            .holdAtLeast(configuration.getLockAtLeastFor());
        try {
            return Optional.of(new DistributedShedLock(this.locks.acquire(request), configuration));
        }
        catch (LockNotAcquiredException ex) {
            return Optional.empty();
        }
    }

    /** Whether ShedLock's locks get {@code lockAtMostFor} or the renewed lease. */
    public ShedLockLease lease() {
        return this.lease;
    }

    @Override
    public String toString() {
        return "DistributedLockShedLockProvider[" + this.locks + ", " + this.lease + "]";
    }
}
