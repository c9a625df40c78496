package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.BenchZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

/**
 * A Curator client of its own (its own session) and one {@code InterProcessMutex} on the hot key, shared by the
 * instance's threads as Curator intends (its reentrancy is per thread): {@code acquire(10 s)} + {@code release()}.
 * Every waiting thread has a node of its own and watches the one before it.
 */
final class CuratorContendedLock implements ContendedLock {

    private final CuratorFramework client;

    private final InterProcessMutex mutex;

    CuratorContendedLock(String connectString) {
        this.client = BenchZooKeeper.client(connectString);
        this.mutex = new InterProcessMutex(this.client, "/curator-locks/" + HOT_KEY);
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        if (!acquire()) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            release();
        }
        return true;
    }

    private boolean acquire() throws InterruptedException {
        try {
            return this.mutex.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            throw ex;
        }
        catch (Exception ex) {
            throw new IllegalStateException("InterProcessMutex.acquire failed", ex);
        }
    }

    private void release() {
        try {
            this.mutex.release();
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
