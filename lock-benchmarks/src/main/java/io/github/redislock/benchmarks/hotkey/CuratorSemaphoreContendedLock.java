package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.BenchZooKeeper;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.jspecify.annotations.Nullable;

/**
 * A Curator client of its own (its own session) and Curator's {@code InterProcessSemaphoreV2} of 4 leases, shared by
 * the instance's threads: {@code acquire(10 s)} returns a lease, {@code returnLease} gives it back.
 */
final class CuratorSemaphoreContendedLock implements ContendedLock {

    private final CuratorFramework client;

    private final InterProcessSemaphoreV2 semaphore;

    CuratorSemaphoreContendedLock(String connectString) {
        this.client = BenchZooKeeper.client(connectString);
        this.semaphore = new InterProcessSemaphoreV2(this.client,
                "/curator-semaphores/" + SharedShape.SEMAPHORE.key(), SharedShape.PERMITS);
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        Lease lease = acquire();
        if (lease == null) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            this.semaphore.returnLease(lease);
        }
        return true;
    }

    private @Nullable Lease acquire() throws InterruptedException {
        try {
            return this.semaphore.acquire(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            throw ex;
        }
        catch (Exception ex) {
            throw new IllegalStateException("InterProcessSemaphoreV2.acquire failed", ex);
        }
    }

    @Override
    public void close() {
        this.client.close();
    }
}
