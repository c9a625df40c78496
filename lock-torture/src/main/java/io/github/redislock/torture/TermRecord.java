package io.github.redislock.torture;

/**
 * One term of a worker in the leader election workload ({@link Workload#LEADER}), as the worker saw it, written to
 * the witness when the worker stops. Times are the witness's microseconds, carried on by the worker's monotonic
 * clock ({@link WitnessClock}), as {@link SectionRecord}'s {@code heldUntil} is.
 *
 * @param worker the worker's id
 * @param term the term ({@code Leadership.term()}: the election lock's fencing token)
 * @param granted when the worker first learned that it leads: the earlier of its first {@code isLeader()} that
 * answered true for this term and the {@code LeadershipGrantedEvent}, each timed when it returned or arrived
 * @param leaderUntil the last moment the worker was told that it leads in this term: when its last
 * {@code isLeader()} that answered true had returned (asked every {@value LeaderWatch#SAMPLE_MILLIS} ms)
 * @param ended when {@code isLeader()} was first seen false after the grant; 0 when the worker still led at its stop
 * @param reason the {@code LeadershipRevokedEvent}'s reason for this term ({@code LOST}, {@code YIELDED},
 * {@code STOPPED}), or {@code -} when none had arrived by the worker's stop
 */
record TermRecord(String worker, long term, long granted, long leaderUntil, long ended, String reason) {

    /** Whether the worker was told that it lost this term, not just that it gave it up. */
    boolean toldLost() {
        return "LOST".equals(this.reason);
    }

    String format() {
        return String.join("|", this.worker, Long.toString(this.term), Long.toString(this.granted),
                Long.toString(this.leaderUntil), Long.toString(this.ended), this.reason);
    }

    static TermRecord parse(String text) {
        String[] f = text.split("\\|", -1);
        if (f.length != 6) {
            throw new IllegalArgumentException("Not a term record: " + text);
        }
        try {
            return new TermRecord(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3]),
                    Long.parseLong(f[4]), f[5]);
        }
        catch (NumberFormatException ex) {
            throw new IllegalArgumentException("Not a term record: " + text + " (" + ex.getMessage() + ")", ex);
        }
    }
}
