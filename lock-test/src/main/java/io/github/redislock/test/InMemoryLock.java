package io.github.redislock.test;

import io.github.redislock.engine.StoreLock;

/**
 * One key held in an {@link InMemoryLockStore}: the values the store compares when it is released, extended or
 * checked, and when its lease started. Immutable; the store owns the key's state.
 */
final class InMemoryLock implements StoreLock {

    private final InMemoryLockStore store;

    private final String key;

    private final String token;

    private final long fencingToken;

    private final long leaseStartNanos;

    InMemoryLock(InMemoryLockStore store, String key, String token, long fencingToken, long leaseStartNanos) {
        this.store = store;
        this.key = key;
        this.token = token;
        this.fencingToken = fencingToken;
        this.leaseStartNanos = leaseStartNanos;
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
    public long fencingToken() {
        return this.fencingToken;
    }

    /** The moment the store took the key, which is where its lease counts from in the store too. */
    @Override
    public long leaseStartNanos() {
        return this.leaseStartNanos;
    }

    @Override
    public boolean verify() {
        return this.store.verify(this);
    }

    @Override
    public boolean release(long keepMillis) {
        return this.store.release(this, keepMillis);
    }

    @Override
    public String toString() {
        return "InMemoryLock[" + this.key + ", fence " + this.fencingToken + "]";
    }
}
