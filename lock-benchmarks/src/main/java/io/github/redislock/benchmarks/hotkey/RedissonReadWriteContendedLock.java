package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.clients.RedissonClients;
import org.redisson.api.RLock;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

/**
 * A Redisson client of its own and Redisson's {@code RReadWriteLock}: {@code readLock()} or {@code writeLock()}
 * ({@link SharedShape#READ_MOSTLY}), {@code tryLock(10 s, 30 s)} + {@code unlock()}.
 */
final class RedissonReadWriteContendedLock implements ContendedLock {

    private final RedissonClient redisson;

    private final RReadWriteLock lock;

    RedissonReadWriteContendedLock(String redisUrl) {
        this.redisson = RedissonClients.create(redisUrl);
        this.lock = this.redisson.getReadWriteLock(SharedShape.READ_MOSTLY.key());
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        RLock taken = SharedShape.READ_MOSTLY.nextIsWrite() ? this.lock.writeLock() : this.lock.readLock();
        if (!taken.tryLock(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS)) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            taken.unlock();
        }
        return true;
    }

    @Override
    public void close() {
        this.redisson.shutdown();
    }
}
