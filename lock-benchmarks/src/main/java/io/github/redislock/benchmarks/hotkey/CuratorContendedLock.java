package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.benchmarks.BenchZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;

/**
 * A Curator client of its own (its own session) and one {@code InterProcessMutex} on the hot key
 * ({@link #mutex}), or one {@code InterProcessReadWriteLock} whose read or write lock each call takes
 * ({@link #readMostly}), shared by the instance's threads as Curator intends (its reentrancy is per thread):
 * {@code acquire(10 s)} + {@code release()}. Every waiting thread has a node of its own and watches one before it.
 */
final class CuratorContendedLock implements ContendedLock {

    private final CuratorFramework client;

    /** The lock the next call takes. */
    private final Supplier<InterProcessMutex> mutex;

    private CuratorContendedLock(CuratorFramework client, Supplier<InterProcessMutex> mutex) {
        this.client = client;
        this.mutex = mutex;
    }

    static CuratorContendedLock mutex(String connectString) {
        CuratorFramework client = BenchZooKeeper.client(connectString);
        InterProcessMutex mutex = new InterProcessMutex(client, "/curator-locks/" + HOT_KEY);
        return new CuratorContendedLock(client, () -> mutex);
    }

    /** Curator's {@code InterProcessReadWriteLock}: its read lock nine calls in ten, its write lock the tenth. */
    static CuratorContendedLock readMostly(String connectString) {
        CuratorFramework client = BenchZooKeeper.client(connectString);
        InterProcessReadWriteLock lock = new InterProcessReadWriteLock(client,
                "/curator-rwlocks/" + SharedShape.READ_MOSTLY.key());
        return new CuratorContendedLock(client,
                () -> SharedShape.READ_MOSTLY.nextIsWrite() ? lock.writeLock() : lock.readLock());
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        InterProcessMutex mutex = this.mutex.get();
        if (!acquire(mutex)) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            release(mutex);
        }
        return true;
    }

    private static boolean acquire(InterProcessMutex mutex) throws InterruptedException {
        try {
            return mutex.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            throw ex;
        }
        catch (Exception ex) {
            throw new IllegalStateException("InterProcessMutex.acquire failed", ex);
        }
    }

    private static void release(InterProcessMutex mutex) {
        try {
            mutex.release();
        }
        catch (Exception ex) {
            throw new IllegalStateException("InterProcessMutex.release failed", ex);
        }
    }

    @Override
    public void close() {
        this.client.close();
    }
}
