package io.github.redislock.leader;

import org.springframework.context.ApplicationEvent;

/**
 * Published when this instance becomes the leader of an election, on the candidate's thread, after
 * {@link Leadership#isLeader()} turned true: start what only the leader does. Its source is the {@link Leadership}.
 */
public class LeadershipGrantedEvent extends ApplicationEvent {

    private static final long serialVersionUID = 1L;

    private final String name;

    private final long term;

    public LeadershipGrantedEvent(Leadership source, String name, long term) {
        super(source);
        this.name = name;
        this.term = term;
    }

    /** The election's name. */
    public String getName() {
        return this.name;
    }

    /** The term that begins: the fencing token of the election's lock (see {@link Leadership#term()}). */
    public long getTerm() {
        return this.term;
    }

    @Override
    public String toString() {
        return "LeadershipGrantedEvent[name=" + this.name + ", term=" + this.term + "]";
    }
}
