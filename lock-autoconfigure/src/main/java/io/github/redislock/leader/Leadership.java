package io.github.redislock.leader;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * This application's part in one leader election: among the instances that stand in the election of one name, at
 * most one leads at a time, and the one that leads knows it. {@code redis-lock.leader.name} makes the application a
 * candidate and defines this bean ({@link LeaderCandidate}); more elections are more {@link LeaderCandidate} beans,
 * one per name.
 * <p>
 * Leading is holding the election's lock in the lock store: {@link #isLeader()} is true only while this instance
 * holds it as far as it can tell, by its own clock, and it turns false before the lease could have run out in the
 * store; so no two instances' {@code isLeader()} are true at once unless the store itself lost the lock (a Redis
 * restarted empty, a failover to a replica without it), and then the instance that held it is told within one
 * lease. Every grant and revocation is published as an event ({@link LeadershipGrantedEvent},
 * {@link LeadershipRevokedEvent}).
 */
public interface Leadership {

    /** The election's name: every instance with the same name stands in the same election. */
    String name();

    /**
     * Whether this instance leads now: it was granted the leadership and still holds the election's lock, with
     * its lease not run out by this JVM's clock. Checked locally, without a call to the store.
     */
    boolean isLeader();

    /**
     * While this instance leads, the term: the fencing token of the election's lock, greater than every earlier
     * term of the election (under the conditions the store gives for its fencing tokens). Hand it to the
     * resources the leader writes to, so that they can refuse a deposed leader's late writes. Empty while it does
     * not lead.
     */
    OptionalLong term();

    /**
     * Gives the leadership up, if this instance leads: {@link LeadershipRevokedEvent} with
     * {@link LeadershipRevokedEvent.Reason#YIELDED} is published, then the lock released, so that another candidate
     * may take it; this instance stands again after a pause ({@code redis-lock.leader.yield-pause}). Does nothing
     * when it does not lead. Returns without waiting for the revocation.
     */
    void yieldLeadership();

    /**
     * Waits until this instance leads, at most {@code timeout}.
     * @return whether it leads
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    boolean awaitLeadership(Duration timeout) throws InterruptedException;
}
