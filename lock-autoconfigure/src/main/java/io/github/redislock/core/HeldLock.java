package io.github.redislock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.LockEngineState;

/**
 * One key held in Redis by this application: stored value, fencing token, lease, owner thread and how many
 * nested acquisitions (reentrancy) share it. The first acquisition creates it, the last one releases the key.
 * <pre>
 * HELD --release begins--> RELEASED (deleted, handed on, or kept in Redis by nobody for the rest of its
 *                                    holdAtLeast: see {@link KeptLocks})
 * HELD --renewal / release / commit check finds the key not ours--> LOST (signalled once)
 * </pre>
 */
final class HeldLock {

    private static final int HELD = 0;

    private static final int RELEASED = 1;

    private static final int LOST = 2;

    final LockKey key;

    /** What the key holds while ours: {@code <token>:<fence>}. */
    final String value;

    final long fence;

    /** The thread that may enter again (reentrancy), or {@code null} for a lock no thread owns. Guarded by this. */
    private @Nullable Thread owner;

    final long leaseMillis;

    final boolean renewed;

    /** Whether a release handed the lock to this holder (through Redis, or from a thread here) rather than it being free. */
    final boolean handedOver;

    /** Local hand-overs between holders of this application since the key was taken in Redis. */
    final int handovers;

    /** When the key was taken in Redis ({@link System#nanoTime()}); local hand-overs keep it. */
    final long tenureStartNanos;

    /** When this holder got the lock: its acquire was sent, or it was passed the lock ({@link System#nanoTime()}). */
    final long acquiredAtNanos;

    /**
     * Where holdAtLeast counts from ({@link System#nanoTime()}): when the reply that made this holder arrived, or
     * when it was passed the lock here. Later than the moment Redis took the key, so the key is kept at least as
     * long as asked (errs on the safe side by one round trip).
     */
    private final long holdFromNanos;

    /** The largest holdAtLeast of the acquisitions sharing this lock (reentrancy), in ns; 0: none. Guarded by this. */
    private long holdAtLeastNanos;

    private volatile long expiresAtNanos;

    private final AtomicInteger state = new AtomicInteger(HELD);

    private int holds = 1;

    /** Taken in Redis by an attempt sent at {@code sentAtNanos}, free or handed over to this application. */
    HeldLock(LockKey key, String value, long fence, long leaseMillis, boolean renewed, long sentAtNanos,
            boolean handedOver) {
        this(key, value, fence, leaseMillis, renewed, sentAtNanos, handedOver, 0, sentAtNanos);
    }

    private HeldLock(LockKey key, String value, long fence, long leaseMillis, boolean renewed, long sentAtNanos,
            boolean handedOver, int handovers, long tenureStartNanos) {
        this.key = key;
        this.value = value;
        this.fence = fence;
        this.owner = Thread.currentThread();
        this.leaseMillis = leaseMillis;
        this.renewed = renewed;
        this.handedOver = handedOver;
        this.handovers = handovers;
        this.tenureStartNanos = tenureStartNanos;
        this.acquiredAtNanos = (handovers == 0) ? sentAtNanos : System.nanoTime();
        this.holdFromNanos = System.nanoTime();
        extended(sentAtNanos);
    }

    /**
     * Claimed from a holder of this application (cohort hand-over): the same value in Redis, the next fencing
     * token, and a lease that surely runs from {@code sentAtNanos} (the grant's, or an extension's).
     */
    static HeldLock claimed(LockKey key, LocalGrant grant, long leaseMillis, boolean renewed, long sentAtNanos) {
        return new HeldLock(key, grant.value(), grant.fence() + 1, leaseMillis, renewed, sentAtNanos, true,
                grant.handovers(), grant.tenureStartNanos());
    }

    /** What the next holder of this application claims when this one passes the lock on. */
    LocalGrant passOn() {
        return new LocalGrant(this.value, this.fence, this.renewed, this.leaseMillis, this.expiresAtNanos,
                this.handovers + 1, this.tenureStartNanos);
    }

    /** How long the key surely holds our value still, by this JVM's clock (negative once run out). */
    long leaseLeftNanos(long now) {
        return this.expiresAtNanos - now;
    }

    /**
     * Held as far as this JVM can tell: not released, not found lost, and the lease not run out by the local
     * clock since the last acquire or renewal was sent (which errs on the safe side: Redis started the TTL
     * later).
     */
    boolean isHeld() {
        return this.state.get() == HELD && System.nanoTime() - this.expiresAtNanos < 0;
    }

    boolean isLost() {
        return this.state.get() == LOST;
    }

    void extended(long sentAtNanos) {
        this.expiresAtNanos = sentAtNanos + TimeUnit.MILLISECONDS.toNanos(this.leaseMillis);
    }

    /** Taken for work that goes on off the calling thread: no thread may enter it again. */
    synchronized void ownedByNoThread() {
        this.owner = null;
    }

    /** Another nested acquisition by the owner thread; false if the lock is no longer usable. */
    synchronized boolean enterAgain() {
        if (Thread.currentThread() != this.owner || this.holds == 0 || !isHeld()) {
            return false;
        }
        this.holds++;
        return true;
    }

    /**
     * An acquisition sharing this lock asks for it to be held at least this long after the outermost one took it
     * (the largest such minimum counts).
     */
    synchronized void holdAtLeast(long nanos) {
        this.holdAtLeastNanos = Math.max(this.holdAtLeastNanos, nanos);
    }

    /**
     * How many more milliseconds the key must be kept in Redis when released at {@code now}, rounded up; 0 when
     * holdAtLeast has passed since this holder got the lock (or none was asked for): then it is released.
     */
    synchronized long keepMillis(long now) {
        long elapsed = now - this.holdFromNanos;
        if (this.holdAtLeastNanos <= elapsed) {
            return 0;
        }
        long left = this.holdAtLeastNanos - elapsed;
        long millis = TimeUnit.NANOSECONDS.toMillis(left);
        return (TimeUnit.MILLISECONDS.toNanos(millis) < left) ? millis + 1 : millis;
    }

    /** Ends one acquisition; true when it was the last one and the key must now be released. */
    synchronized boolean exitOne() {
        return this.holds > 0 && --this.holds == 0;
    }

    /** Moves to lost; true only for the caller that made the move (so the loss is signalled once). */
    boolean markLost() {
        return this.state.compareAndSet(HELD, LOST);
    }

    /** The release found the key no longer ours: the lock had been lost before it ended. */
    void lostBeforeRelease() {
        this.state.set(LOST);
    }

    /** Moves to released; false if it was already lost. */
    boolean markReleased() {
        return this.state.compareAndSet(HELD, RELEASED);
    }

    /** What the endpoint shows of it; {@code now} pairs {@link System#nanoTime()} with the wall clock. */
    synchronized LockEngineState.HeldKey view(long nowNanos, Instant now) {
        long leaseStart = this.expiresAtNanos - TimeUnit.MILLISECONDS.toNanos(this.leaseMillis);
        return new LockEngineState.HeldKey(this.key.name, this.fence, now.minusNanos(nowNanos - this.acquiredAtNanos),
                Duration.ofMillis(this.leaseMillis), this.renewed, now.minusNanos(nowNanos - leaseStart),
                (this.owner != null) ? this.owner.getName() : "(asynchronous work)", this.holds);
    }

    @Override
    public String toString() {
        return this.key.name;
    }
}
