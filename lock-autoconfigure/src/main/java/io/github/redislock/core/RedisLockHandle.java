package io.github.redislock.core;

import java.util.concurrent.atomic.AtomicBoolean;

import io.github.redislock.LockHandle;

/** A lock on one key, held until {@link #close()} or until its fixed lease runs out. */
final class RedisLockHandle implements LockHandle {

    private final RedisLockClient client;

    private final String key;

    private final String token;

    private final long expiresAtNanos;

    private final AtomicBoolean closed = new AtomicBoolean();

    RedisLockHandle(RedisLockClient client, String key, String token, long expiresAtNanos) {
        this.client = client;
        this.key = key;
        this.token = token;
        this.expiresAtNanos = expiresAtNanos;
    }

    @Override
    public String key() {
        return this.key;
    }

    @Override
    public String token() {
        return this.token;
    }

    @Override
    public boolean isHeld() {
        return !this.closed.get() && System.nanoTime() - this.expiresAtNanos < 0;
    }

    @Override
    public void close() {
        if (this.closed.compareAndSet(false, true)) {
            this.client.release(this.key, this.token);
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + this.key + "]";
    }
}
