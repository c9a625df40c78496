package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.redislock.benchmarks.BenchZooKeeper;
import org.apache.curator.framework.CuratorFramework;

import org.springframework.integration.zookeeper.lock.ZookeeperLockRegistry;

/**
 * A Spring Integration {@code ZookeeperLockRegistry} on a Curator client of its own, {@code tryLock(10 s)}. The
 * registry wraps an {@code InterProcessMutex} per key and runs each timed acquire on a task executor of its own.
 */
final class IntegrationZooKeeperContendedLock implements ContendedLock {

    private final CuratorFramework client;

    private final ZookeeperLockRegistry registry;

    IntegrationZooKeeperContendedLock(String connectString) {
        this.client = BenchZooKeeper.client(connectString);
        this.registry = new ZookeeperLockRegistry(this.client, "/si-locks");
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        Lock lock = this.registry.obtain(HOT_KEY);
        if (!lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            lock.unlock();
        }
        return true;
    }

    @Override
    public void close() {
        this.registry.destroy();
        this.client.close();
    }
}
