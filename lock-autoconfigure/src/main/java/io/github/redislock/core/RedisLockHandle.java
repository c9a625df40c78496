package io.github.redislock.core;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockHandle;

/**
 * One acquisition of one key. Nested (reentrant) acquisitions of the same key by the same thread get
 * their own handle on the same {@link HeldLock}; the key is released when the last of them closes.
 */
final class RedisLockHandle implements LockHandle {

    private final RedisLockClient client;

    private final HeldLock lock;

    private final AtomicBoolean closed = new AtomicBoolean();

    RedisLockHandle(RedisLockClient client, HeldLock lock) {
        this.client = client;
        this.lock = lock;
    }

    @Override
    public String key() {
        return this.lock.key.name;
    }

    @Override
    public String token() {
        return this.lock.value;
    }

    @Override
    public long fencingToken() {
        return this.lock.fence;
    }

    @Override
    public boolean isHeld() {
        return !this.closed.get() && this.lock.isHeld();
    }

    @Override
    public boolean isLost() {
        return this.lock.isLost();
    }

    @Override
    public boolean verifyHeld() {
        return this.client.verify(this.lock);
    }

    @Override
    public void close() {
        if (this.closed.compareAndSet(false, true)) {
            this.client.exit(this.lock);
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + this.lock.key + ", fence " + this.lock.fence + "]";
    }
}
