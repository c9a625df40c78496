package io.github.redislock.zookeeper;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.DaemonThreads;

/**
 * The timers of {@link ZooKeeperLockStore}'s locks, on one daemon thread made on first use: a fixed leaseTime
 * (ZooKeeper has no lease: the node is deleted when the time runs out, here) and a holdAtLeast keep (the node of
 * a released lock stays until the minimum has passed). Both delete in the background, guaranteed by Curator (it
 * tries again once the connection is back); a node they miss goes with its session.
 * <pre>
 * NONE --first lease or keep--&gt; RUNNING --close--&gt; STOPPED (pending timers dropped: a kept node then goes
 *                                                    with the session; a later schedule is refused)
 * NONE --close--&gt; NONE (nothing to stop)
 * </pre>
 * A lease timer moves its lock from HELD to EXPIRED ({@link ZooKeeperLock#expire}); when the lock has already left
 * HELD (released, lost) it does nothing, and the lock cancels it as it leaves.
 */
final class LockTimers {

    private static final Log logger = LogFactory.getLog(LockTimers.class);

    private final CuratorFramework client;

    /** Told of a lock whose fixed lease ran out: it is no longer held. */
    private final Consumer<ZooKeeperLock> expired;

    /** Made on first use. */
    private volatile @Nullable ScheduledThreadPoolExecutor timers;

    LockTimers(CuratorFramework client, Consumer<ZooKeeperLock> expired) {
        this.client = client;
        this.expired = expired;
    }

    /** Deletes the lock's node when its fixed lease, counted from the request that made it, runs out. */
    void startLease(ZooKeeperLock lock, long leaseMillis) {
        runOut(lock, TimeUnit.MILLISECONDS.toNanos(leaseMillis) - (System.nanoTime() - lock.leaseStartNanos()));
    }

    /**
     * A holder's extension: the lock's lease timer (if any) cancelled and a new one set to run out
     * {@code leaseMillis} from now.
     * @return false if the lock is no longer held (its lease ran out, it was released, or its session ended)
     */
    boolean restartLease(ZooKeeperLock lock, long leaseMillis) {
        if (!lock.cancelLease()) {
            return false;
        }
        runOut(lock, TimeUnit.MILLISECONDS.toNanos(leaseMillis));
        return lock.state() == ZooKeeperLock.State.HELD;
    }

    private void runOut(ZooKeeperLock lock, long delay) {
        lock.leaseTimer(timers().schedule(() -> {
            if (lock.expire()) {
                this.expired.accept(lock);
                deleteInBackground(lock.node);
            }
        }, delay, TimeUnit.NANOSECONDS));
    }

    /** Deletes a released lock's node after {@code keepMillis} (holdAtLeast). */
    void keep(ZooKeeperLock lock, long keepMillis) {
        timers().schedule(() -> deleteInBackground(lock.node), keepMillis, TimeUnit.MILLISECONDS);
    }

    private void deleteInBackground(String node) {
        try {
            this.client.delete().quietly().guaranteed().inBackground().forPath(node);
        }
        catch (Exception ex) {
            logger.warn("Could not delete lock node " + node + "; it goes with the session", ex);
        }
    }

    private ScheduledThreadPoolExecutor timers() {
        ScheduledThreadPoolExecutor timers = this.timers;
        if (timers == null) {
            synchronized (this) {
                timers = this.timers;
                if (timers == null) {
                    timers = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("redis-lock-zookeeper-timer"));
                    timers.setRemoveOnCancelPolicy(true);
                    this.timers = timers;
                }
            }
        }
        return timers;
    }

    /** Stops the timers; closing again does nothing. */
    void close() {
        ScheduledThreadPoolExecutor timers = this.timers;
        if (timers != null) {
            timers.shutdownNow();
        }
    }
}
