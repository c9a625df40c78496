package io.github.redislock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance stops leading an election, on the candidate's thread, after
 * {@link Leadership#isLeader()} turned false: stop what only the leader does. When this instance gives the
 * leadership up ({@link Reason#YIELDED}, {@link Reason#STOPPED}), the event is published before the election's lock
 * is released, so no other instance can lead before the listeners have returned; when it was lost
 * ({@link Reason#LOST}), another instance may lead already. Its source is the {@link Leadership}.
 */
public class LeadershipRevokedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String name;

    private final long term;

    private final Reason reason;

    public LeadershipRevokedEvent(Leadership source, String name, long term, Reason reason) {
        super(source);
        this.name = name;
        this.term = term;
        this.reason = reason;
    }

    /** The election's name. */
    public String getName() {
        return this.name;
    }

    /** The term that ended. */
    public long getTerm() {
        return this.term;
    }

    public Reason getReason() {
        return this.reason;
    }

    @Override
    public String toString() {
        return "LeadershipRevokedEvent[name=" + this.name + ", term=" + this.term + ", reason=" + this.reason + "]";
    }

    /** Why the term ended. */
    public enum Reason {

        /** This instance gave the leadership up ({@link Leadership#yieldLeadership()}). */
        YIELDED,

        /**
         * The election's lock was lost: it could not be renewed before its lease ran out by this JVM's clock (the
         * store unreachable, the process paused), or the store no longer held it (a restart, failover or expiry,
         * a ZooKeeper session that ended). Another instance may lead already.
         */
        LOST,

        /** The candidate stopped: the application context is closing. */
        STOPPED
    }
}
