package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.clients.RedissonClients;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/** A Redisson client of its own, {@code RLock.tryLock(10 s, 30 s)}: waits on Redisson's pub/sub channel. */
final class RedissonContendedLock implements ContendedLock {

    private final RedissonClient redisson;

    private final RLock lock;

    RedissonContendedLock(String redisUrl) {
        this.redisson = RedissonClients.create(redisUrl);
        this.lock = this.redisson.getLock(HOT_KEY);
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        if (!this.lock.tryLock(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            this.lock.unlock();
        }
        return true;
    }

    @Override
    public void close() {
        this.redisson.shutdown();
    }
}
