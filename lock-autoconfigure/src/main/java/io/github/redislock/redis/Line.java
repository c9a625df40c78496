package io.github.redislock.redis;

import java.util.ArrayDeque;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * The threads of this application waiting for one key, first come first served, what the application
 * knows of its place in the key's Redis queue, and a lock a holder here passed straight to the line. All of
 * a line's state is guarded by the line itself and changed only through these methods; {@link Waiting}
 * describes the states and transitions.
 */
final class Line {

    /** {@link #leave()}: nothing more to do. */
    static final Departure STAY = new Departure(false, null);

    /** {@link #leave()}: the line is empty while the application is queued: give up the queue entry. */
    static final Departure LEAVE_QUEUE = new Departure(true, null);

    private final ArrayDeque<Thread> waiters = new ArrayDeque<>();

    /** Removed from {@link Lines}: nobody may join it any more. */
    private boolean retired;

    /** Whether this application (most likely) has an entry in the key's Redis queue. */
    private boolean queued;

    /** Attempts answered "taken" (each queued the application), and attempts whose answer never came. */
    private long queuings;

    /**
     * {@link #queuings} when the application last decided to leave the key's queue, before the leave went out:
     * an attempt counted after it may have reached Redis after the leave and queued the application again.
     */
    private long queuingsAtLeave;

    /** Hand-off messages received for the key. */
    private long handoffs;

    /** {@link #handoffs} when the first waiter last sent an attempt: a difference is a hand-off to take over. */
    private long handoffsSeen;

    /** Whether the first waiter should look at Redis at once, whatever {@link #nextTryAt} says. */
    private boolean due = true;

    /** When the first waiter should next look at Redis ({@link System#nanoTime()}). */
    private long nextTryAt;

    /** A lock a holder here passed on to the line, for its first waiter to claim. */
    private @Nullable LocalGrant grant;

    /**
     * How many threads at the front of the line a holder here may still pass the lock to: those that were
     * already waiting when a thread of this application took the key in Redis. A thread that joins later
     * waits for the application's next turn, so every waiting thread gets the lock once per turn and waits
     * about as long as any other (unless the holder offers with rejoin: {@link #offer(LocalGrant, boolean)}).
     */
    private int eligible;

    /** Puts the current thread at the back; false if the line was retired (join the one replacing it). */
    synchronized boolean join() {
        if (this.retired) {
            return false;
        }
        this.waiters.addLast(Thread.currentThread());
        return true;
    }

    synchronized boolean hasWaiters() {
        return !this.waiters.isEmpty();
    }

    /**
     * Whether the current thread is first and due to send an attempt: the application is not queued (so no
     * hand-off can come), a hand-off arrived since the last attempt, or the timer ran out. If so, the attempt
     * is counted as sent now.
     */
    synchronized boolean startAttempt(long now) {
        if (this.waiters.peekFirst() != Thread.currentThread() || !mustTry(now)) {
            return false;
        }
        this.due = false;
        this.handoffsSeen = this.handoffs;
        return true;
    }

    /**
     * The first waiter's attempt found the key taken and queued this application. The next attempt is due
     * at {@code nextTryAt}, or at once if a hand-off arrived while the attempt was on its way.
     */
    synchronized void taken(long nextTryAt) {
        this.queued = true;
        this.queuings++;
        this.nextTryAt = nextTryAt;
    }

    /** How long the current thread may park: the first until its attempt is due, the others up to the bound. */
    synchronized long parkNanos(long now, long bound) {
        if (this.waiters.peekFirst() != Thread.currentThread()) {
            return bound;
        }
        return (this.grant != null || mustTry(now)) ? 0 : Math.min(bound, this.nextTryAt - now);
    }

    /**
     * A holder here passes its lock to the line instead of releasing it in Redis: the first waiter claims it.
     * @return false when nobody waits who was already waiting when the key was taken in Redis (or a grant is
     * pending already), so the holder releases in Redis
     */
    synchronized boolean offer(LocalGrant offered) {
        return offer(offered, false);
    }

    /**
     * As {@link #offer(LocalGrant)}; with {@code rejoin}, to the first waiter even if it joined during the turn
     * (a thread that came back for the lock): turns then last as long as the {@link LocalHandover}'s bounds let
     * them, and waits here are no longer one per waiting thread per turn.
     */
    synchronized boolean offer(LocalGrant offered, boolean rejoin) {
        Thread first = this.waiters.peekFirst();
        if (first == null || this.grant != null || (this.eligible == 0 && !rejoin)) {
            return false;
        }
        this.grant = offered;
        LockSupport.unpark(first);
        return true;
    }

    /** The lock passed to the line, if the current thread is first and one is pending; it is then the thread's. */
    synchronized @Nullable LocalGrant claim() {
        LocalGrant pending = this.grant;
        if (pending == null || this.waiters.peekFirst() != Thread.currentThread()) {
            return null;
        }
        this.grant = null;
        return pending;
    }

    private boolean mustTry(long now) {
        return this.due || !this.queued || this.handoffs != this.handoffsSeen || now - this.nextTryAt >= 0;
    }

    /** A hand-off message: wakes the first waiter to take it over; false when nobody here waits. */
    synchronized boolean handedOver() {
        this.handoffs++;
        Thread first = this.waiters.peekFirst();
        if (first == null) {
            return false;
        }
        LockSupport.unpark(first);
        return true;
    }

    /**
     * Our own release changed the key, or a hand-off message may have been missed: the first waiter, if any,
     * looks at Redis at once.
     */
    synchronized boolean tryNow() {
        this.due = true;
        Thread first = this.waiters.peekFirst();
        if (first != null) {
            LockSupport.unpark(first);
        }
        return first != null;
    }

    /**
     * Takes the current thread out of the line; the new first one, if any, carries on (a hand-off not yet
     * taken over, or a lock passed to the line, is now its to take).
     * @return what the departure leaves to do: with the line now empty, a lock passed to it and not claimed
     * must be released, and while the application is queued its queue entry (and any hand-off to it) must be
     * given up
     */
    synchronized Departure leave() {
        return leave(false);
    }

    /**
     * {@link #leave()} by the thread that took the key in Redis: the application's turn begins, and the threads
     * waiting now may be passed the lock in it.
     */
    synchronized Departure leaveTakingTurn() {
        return leave(true);
    }

    private Departure leave(boolean turnBegins) {
        Thread current = Thread.currentThread();
        boolean first = this.waiters.peekFirst() == current;
        int position = 0;
        for (Thread waiter : this.waiters) {
            if (waiter == current) {
                break;
            }
            position++;
        }
        if (position < this.eligible) {
            this.eligible--;
        }
        this.waiters.remove(current);
        if (turnBegins) {
            this.eligible = this.waiters.size();
        }
        Thread next = this.waiters.peekFirst();
        if (next != null) {
            if (first) {
                LockSupport.unpark(next);
            }
            return STAY;
        }
        if (this.queued) {
            this.queuingsAtLeave = this.queuings;
        }
        LocalGrant orphan = this.grant;
        if (orphan != null) {
            this.grant = null;
            return new Departure(this.queued, orphan);
        }
        return this.queued ? LEAVE_QUEUE : STAY;
    }

    /**
     * An attempt whose answer never arrived may have queued the application: count it as queued, so that
     * the last waiter to leave takes the entry out.
     */
    synchronized void mayBeQueued() {
        this.queued = true;
        this.queuings++;
    }

    /** The lock goes back to Redis: the application's turn is over, nobody here may be passed it any more. */
    synchronized void turnEnds() {
        this.eligible = 0;
    }

    /**
     * A release by a thread here: whether it also gives up the queue entry, because nobody here waits. If
     * so the application counts as no longer queued.
     */
    synchronized boolean releaseLeaves() {
        if (this.queued && this.waiters.isEmpty()) {
            this.queued = false;
            this.queuingsAtLeave = this.queuings;
            return true;
        }
        return false;
    }

    /**
     * The application gave up its queue entry ({@link #releaseLeaves} or after {@link #leave}): whether a
     * thread joined meanwhile, whose entry may just have been removed with it. The application counts as no
     * longer queued only if no attempt queued it since the leave was decided: such an attempt may have reached
     * Redis after the leave, and its entry then lives on. Were the line retired with that entry in the queue, a
     * release would hand the key to this application with nobody here to take it over or pass it on (the message
     * for a key without a line is dropped), and the key would lie idle for the entry's lease.
     */
    synchronized boolean leftQueue() {
        if (this.queuings == this.queuingsAtLeave) {
            this.queued = false;
        }
        return tryNowIfWaiting();
    }

    private boolean tryNowIfWaiting() {
        return !this.waiters.isEmpty() && tryNow();
    }

    /** Retires the line if it has nothing left to remember: no waiter and no queue entry. */
    synchronized boolean retireIfIdle() {
        this.retired = this.waiters.isEmpty() && !this.queued && this.grant == null;
        return this.retired;
    }

    /** How many threads wait in this line now. */
    synchronized int waiterCount() {
        return this.waiters.size();
    }

    /** The first waiting thread, for tests. */
    synchronized @Nullable Thread first() {
        return this.waiters.peekFirst();
    }

    /**
     * What a thread leaving the line leaves to do.
     * @param leaveQueue the line is empty while the application is queued: its queue entry must go
     * @param orphan a lock passed to the line that nobody is left to claim: it must be released
     */
    record Departure(boolean leaveQueue, @Nullable LocalGrant orphan) {
    }
}
