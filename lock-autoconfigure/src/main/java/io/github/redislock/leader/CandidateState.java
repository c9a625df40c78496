package io.github.redislock.leader;

import java.util.OptionalLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockHandle;
import io.github.redislock.leader.LeadershipRevokedEvent.Reason;

/**
 * The state machine of one {@link LeaderCandidate} (its table is in the candidate's Javadoc): the state, what was
 * asked of it (yield, stop), the current term's lock, and the leader thread's last look at it. The moves are made
 * under one lock, whose condition wakes the candidate's thread and whoever awaits the leadership; the term is read
 * without it.
 */
final class CandidateState {

    enum State {
        STOPPED, STANDING, LEADER, REVOKED, PAUSED
    }

    private final long leaseCheckNanos;

    /** How long the leader's thread may stand still before its term counts as lost; {@code Long.MAX_VALUE}: ever. */
    private final long pauseLimitNanos;

    private final ReentrantLock lock = new ReentrantLock();

    /** Signalled on every change the thread or a waiter must see. */
    private final Condition changed = this.lock.newCondition();

    /** Guarded by {@link #lock}. */
    private State state = State.STOPPED;

    /** Guarded by {@link #lock}. */
    private boolean stopping;

    /** Guarded by {@link #lock}. */
    private boolean yieldAsked;

    /** Guarded by {@link #lock}. */
    private @Nullable Thread thread;

    /** The lock of the current term: set only in LEADER, cleared first thing when it ends. */
    private volatile @Nullable LockHandle term;

    /** The lock of a term given up here (YIELDED, STOPPED), from its end until it is released. */
    private volatile @Nullable LockHandle releasing;

    /** When the leader's thread last looked at its term ({@link System#nanoTime()}). */
    private volatile long lookedAtNanos;

    CandidateState(long leaseCheckNanos, long pauseLimitNanos) {
        this.leaseCheckNanos = leaseCheckNanos;
        this.pauseLimitNanos = pauseLimitNanos;
    }

    /** The current term, while its lock is held and this JVM has not stood still since the thread last looked. */
    OptionalLong term() {
        LockHandle current = this.term;
        return (current != null && current.isHeld() && !stoodStill(System.nanoTime()))
                ? OptionalLong.of(current.fencingToken()) : OptionalLong.empty();
    }

    /** The current term's lock, whether or not still held (for matching a loss to it). */
    @Nullable LockHandle termLock() {
        return this.term;
    }

    /**
     * Whether the leader's thread has not looked at its term for longer than the pause limit: this JVM stood still,
     * and on a store without leases the client may not know yet that its session ended meanwhile.
     */
    private boolean stoodStill(long nowNanos) {
        return nowNanos - this.lookedAtNanos > this.pauseLimitNanos;
    }

    /** STOPPED to STANDING with the thread about to run it; false when it runs already. */
    boolean start(Thread runner) {
        this.lock.lock();
        try {
            if (this.thread != null) {
                return false;
            }
            this.stopping = false;
            this.state = State.STANDING;
            this.thread = runner;
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Asks the thread to stop; returns it (to join), or {@code null} when not running. */
    @Nullable Thread stop() {
        this.lock.lock();
        try {
            Thread runner = this.thread;
            if (runner != null) {
                this.stopping = true;
                if (this.state == State.STANDING) {
                    // Only while it waits for the lock: a leader's thread runs listeners and releases, never interrupted.
                    runner.interrupt();
                }
                this.changed.signalAll();
            }
            return runner;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The thread has ended (or was left to end): STOPPED. */
    void stopped() {
        this.lock.lock();
        try {
            this.thread = null;
            this.state = State.STOPPED;
        }
        finally {
            this.lock.unlock();
        }
    }

    boolean isRunning() {
        this.lock.lock();
        try {
            return this.thread != null;
        }
        finally {
            this.lock.unlock();
        }
    }

    boolean stopping() {
        this.lock.lock();
        try {
            return this.stopping;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** To STANDING; false when stopping. */
    boolean stand() {
        this.lock.lock();
        try {
            if (this.stopping) {
                return false;
            }
            this.state = State.STANDING;
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** STANDING to LEADER with the lock just taken; false (the lock to be released) when stopping. */
    boolean lead(LockHandle handle) {
        this.lock.lock();
        try {
            // stop() interrupts a standing thread: its interrupt must not reach the listeners or the release.
            Thread.interrupted();
            if (this.stopping) {
                return false;
            }
            this.state = State.LEADER;
            this.yieldAsked = false;
            this.lookedAtNanos = System.nanoTime();
            this.term = handle;
            this.changed.signalAll();
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** LEADER: yield asked for (nothing in any other state). */
    void yieldLeadership() {
        this.lock.lock();
        try {
            if (this.state == State.LEADER) {
                this.yieldAsked = true;
                this.changed.signalAll();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Waits in LEADER until the term ends; moves to REVOKED (no term) and says why. */
    Reason awaitRevocation(LockHandle handle) throws InterruptedException {
        this.lock.lock();
        try {
            boolean held;
            while ((held = stillLeads(handle)) && !this.yieldAsked && !this.stopping) {
                this.changed.awaitNanos(this.leaseCheckNanos);
            }
            Reason reason = !held ? Reason.LOST : this.yieldAsked ? Reason.YIELDED : Reason.STOPPED;
            if (reason != Reason.LOST) {
                this.releasing = handle;
            }
            this.term = null;
            this.state = State.REVOKED;
            return reason;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The leader's thread looks at its term: held, and this JVM did not stand still since the last look. */
    private boolean stillLeads(LockHandle handle) {
        long now = System.nanoTime();
        if (stoodStill(now) || !handle.isHeld()) {
            return false;
        }
        this.lookedAtNanos = now;
        return true;
    }

    /** The ended term's lock was released (or found lost): no longer {@link #stillHolds}. */
    void released() {
        this.releasing = null;
    }

    /** Whether the lock of the term is still held although the term ended here (YIELDED, STOPPED). */
    boolean stillHolds(long term) {
        LockHandle ending = this.releasing;
        return ending != null && ending.fencingToken() == term && ending.isHeld();
    }

    /** PAUSED for {@code nanos}; false when stopping. */
    boolean pause(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        this.lock.lock();
        try {
            this.state = State.PAUSED;
            long left;
            while (!this.stopping && (left = deadline - System.nanoTime()) > 0) {
                this.changed.awaitNanos(left);
            }
            return !this.stopping;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Waits until there is a term, at most {@code timeoutNanos}. */
    boolean awaitTerm(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        this.lock.lock();
        try {
            long left;
            while (term().isEmpty() && (left = deadline - System.nanoTime()) > 0) {
                this.changed.awaitNanos(left);
            }
            return term().isPresent();
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Wakes the leader's thread to look at its term now. */
    void signal() {
        this.lock.lock();
        try {
            this.changed.signalAll();
        }
        finally {
            this.lock.unlock();
        }
    }
}
