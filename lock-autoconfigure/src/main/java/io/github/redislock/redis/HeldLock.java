package io.github.redislock.redis;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.LockValue;

/**
 * One key held in Redis by this application, as the Redis store keeps it: stored value, fencing token, lease, and
 * its place in the application's tenure of the key (local hand-overs). A write lock's value is the key's; a share's
 * (a read lock, a semaphore's permit: {@link #sharing}) is its entry among the key's holders ({@code share.lua}),
 * never passed on within the application. The engine keeps reentrancy, its own lease
 * clock and the lost state; this keeps what the store needs itself: until when the key surely holds our value
 * (what a local hand-over passes on) and whether the store found it no longer ours (never passed on then).
 * <pre>
 * HELD --release begins--> RELEASED (deleted, handed on, passed to a thread here, or kept by nobody for the rest
 *                                    of its holdAtLeast)
 * HELD --renewal / commit check / extension of a lock passed on here finds the key not ours--> NOT_OURS
 * </pre>
 */
final class HeldLock implements StoreLock {

    private static final int HELD = 0;

    private static final int RELEASED = 1;

    private static final int NOT_OURS = 2;

    private static final AtomicIntegerFieldUpdater<HeldLock> STATE = AtomicIntegerFieldUpdater
        .newUpdater(HeldLock.class, "state");

    final LockKey key;

    /** What the key holds while ours: {@code <token>:<fence>}. */
    final String value;

    final long fence;

    /** The lease it was taken with, or last extended to by the engine ({@link SlotRenewals}). */
    volatile long leaseMillis;

    final boolean renewed;

    /** {@link Sharing#EXCLUSIVE} for a write lock, else the share it holds. */
    final Sharing sharing;

    /** Whether a release handed the lock to this holder (through Redis, or from a thread here) rather than it being free. */
    final boolean handedOver;

    /** Local hand-overs between holders of this application since the key was taken in Redis. */
    final int handovers;

    /** When the key was taken in Redis ({@link System#nanoTime()}); local hand-overs keep it. */
    final long tenureStartNanos;

    /** When the lease the key surely has began: the last acquire or extension sent ({@link System#nanoTime()}). */
    private volatile long leaseStartNanos;

    private volatile int state;

    /** The store whose waiting and protocol release and check it; set once, before the engine sees the lock. */
    private volatile @Nullable RedisLockStore store;

    private HeldLock(LockKey key, String value, long fence, long leaseMillis, boolean renewed, Sharing sharing,
            long sentAtNanos, boolean handedOver, int handovers, long tenureStartNanos) {
        this.key = key;
        this.value = value;
        this.fence = fence;
        this.leaseMillis = leaseMillis;
        this.renewed = renewed;
        this.sharing = sharing;
        this.handedOver = handedOver;
        this.handovers = handovers;
        this.tenureStartNanos = tenureStartNanos;
        this.leaseStartNanos = sentAtNanos;
    }

    /**
     * Taken in Redis by an attempt that acquired it, free or handed over to this application: the key holds the
     * token with the attempt's fencing token, and the lease runs from when the attempt was sent.
     */
    static HeldLock taken(LockKey key, String token, long leaseMillis, boolean renewed, Attempt attempt) {
        return new HeldLock(key, LockValue.of(token, attempt.fence()), attempt.fence(), leaseMillis, renewed,
                Sharing.EXCLUSIVE, attempt.sentAtNanos(), attempt.isHandedOver(), 0, attempt.sentAtNanos());
    }

    /**
     * A share taken by an attempt ({@code share.lua}): the token with the attempt's fencing token is its entry among
     * the key's holders, and its lease runs from when the attempt was sent.
     */
    static HeldLock shared(LockKey key, String token, long leaseMillis, boolean renewed, Sharing sharing,
            Attempt attempt) {
        return new HeldLock(key, LockValue.of(token, attempt.fence()), attempt.fence(), leaseMillis, renewed, sharing,
                attempt.sentAtNanos(), attempt.isHandedOver(), 0, attempt.sentAtNanos());
    }

    /**
     * Claimed from a holder of this application (cohort hand-over): the same value in Redis, the next fencing
     * token, and a lease that surely runs from {@code sentAtNanos} (the grant's, or an extension's).
     */
    static HeldLock claimed(LockKey key, LocalGrant grant, long leaseMillis, boolean renewed, long sentAtNanos) {
        return new HeldLock(key, grant.value(), grant.fence() + 1, leaseMillis, renewed, Sharing.EXCLUSIVE,
                sentAtNanos, true, grant.handovers(), grant.tenureStartNanos());
    }

    /** Whether this is a share (a read lock, a permit) rather than a write lock. */
    boolean isShare() {
        return !this.sharing.isExclusive();
    }

    /** What the next holder of this application claims when this one passes the lock on. */
    LocalGrant passOn() {
        return new LocalGrant(this.value, this.fence, this.renewed, this.leaseMillis, expiresAtNanos(),
                this.handovers + 1, this.tenureStartNanos);
    }

    private long expiresAtNanos() {
        return this.leaseStartNanos + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis);
    }

    /** How long the key surely holds our value still, by this JVM's clock (negative once run out). */
    long leaseLeftNanos(long now) {
        return expiresAtNanos() - now;
    }

    /** An extension sent at {@code sentAtNanos} found the key ours. */
    void extended(long sentAtNanos) {
        this.leaseStartNanos = sentAtNanos;
    }

    /**
     * An extension to {@code leaseMillis} sent at {@code sentAtNanos} found the key ours: a holder's own extension
     * may change the lease's length, which a local hand-over passes on ({@link #passOn}).
     */
    void extended(long sentAtNanos, long leaseMillis) {
        this.leaseMillis = leaseMillis;
        this.leaseStartNanos = sentAtNanos;
    }

    /** HELD to NOT_OURS; true only for the caller that made the move. */
    boolean markLost() {
        return STATE.compareAndSet(this, HELD, NOT_OURS);
    }

    /** HELD to RELEASED; false if it was found not ours already. */
    boolean markReleased() {
        return STATE.compareAndSet(this, HELD, RELEASED);
    }

    void attach(RedisLockStore store) {
        this.store = store;
    }

    @Override
    public String key() {
        return this.key.name;
    }

    @Override
    public String token() {
        return this.value;
    }

    @Override
    public long fencingToken() {
        return this.fence;
    }

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
        return this.key.name;
    }
}
