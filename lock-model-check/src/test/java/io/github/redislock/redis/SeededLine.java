package io.github.redislock.redis;

import java.util.ArrayDeque;

/**
 * {@link Line}'s hand-over protocol (join, the turn, offer, claim, leave) with one defect seeded, for
 * {@link LineModelCheckTest} to show that its checker finds it: the last waiter to leave clears a lock passed to the
 * line without handing it back, so that nobody releases it. Only what the check drives is here.
 */
final class SeededLine implements LineModelCheckTest.HandOver {

    private final ArrayDeque<Thread> waiters = new ArrayDeque<>();

    private LocalGrant grant;

    private int eligible;

    @Override
    public synchronized void join() {
        this.waiters.addLast(Thread.currentThread());
    }

    @Override
    public synchronized void leaveTakingTurn() {
        this.waiters.remove(Thread.currentThread());
        this.eligible = this.waiters.size();
    }

    @Override
    public synchronized boolean offer(LocalGrant offered) {
        if (this.waiters.isEmpty() || this.grant != null || this.eligible == 0) {
            return false;
        }
        this.grant = offered;
        return true;
    }

    @Override
    public synchronized LocalGrant claim() {
        LocalGrant pending = this.grant;
        if (pending == null || this.waiters.peekFirst() != Thread.currentThread()) {
            return null;
        }
        this.grant = null;
        return pending;
    }

    /** The seeded defect: the line empties, the pending lock is dropped instead of returned. */
    @Override
    public synchronized LocalGrant leave() {
        this.waiters.remove(Thread.currentThread());
        if (this.waiters.isEmpty()) {
            this.grant = null;
        }
        return null;
    }
}
