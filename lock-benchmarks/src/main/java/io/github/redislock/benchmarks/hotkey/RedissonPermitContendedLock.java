package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.TimeUnit;

import io.github.redislock.benchmarks.clients.RedissonClients;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RedissonClient;

/**
 * A Redisson client of its own and Redisson's {@code RPermitExpirableSemaphore} of 4 permits (set by the first
 * instance, {@code trySetPermits}): {@code tryAcquire(10 s, 30 s)} returns a permit id, {@code release(id)} gives it
 * back.
 */
final class RedissonPermitContendedLock implements ContendedLock {

    private final RedissonClient redisson;

    private final RPermitExpirableSemaphore semaphore;

    RedissonPermitContendedLock(String redisUrl) {
        this.redisson = RedissonClients.create(redisUrl);
        this.semaphore = this.redisson.getPermitExpirableSemaphore(SharedShape.SEMAPHORE.key());
        this.semaphore.trySetPermits(SharedShape.PERMITS);
    }

    @Override
    public boolean runLocked(Runnable section) throws InterruptedException {
        String permit = this.semaphore.tryAcquire(WAIT.toMillis(), LEASE.toMillis(), TimeUnit.MILLISECONDS);
        if (permit == null) {
            return false;
        }
        try {
            section.run();
        }
        finally {
            this.semaphore.release(permit);
        }
        return true;
    }

    @Override
    public void close() {
        this.redisson.shutdown();
    }
}
