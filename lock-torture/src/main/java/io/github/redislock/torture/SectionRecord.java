package io.github.redislock.torture;

import java.util.Arrays;
import java.util.List;

/**
 * What one attempt at a critical section left in the witness, written by the worker after it released the lock
 * (or gave up waiting). Times are microseconds of the witness's clock: the witness's own for entering and
 * leaving; for the start of the wait and {@code heldUntil}, the worker's monotonic clock carried on from the
 * witness's time when the worker started (see {@code Worker}), which a step of the worker's wall clock does not
 * move. The suite runs every process on this one machine.
 *
 * @param worker the worker's id ({@code w1}, …)
 * @param member the section's id in the occupancy sets, {@code <worker>:<thread>:<sequence>}
 * @param kind how the lock was taken ({@link SectionKind})
 * @param resources the resources locked; the fencing token is the first one's
 * @param token the fencing token, or -1 when the lock was not acquired
 * @param waitStart when the worker started waiting for the lock
 * @param enter when the section entered the witness, 0 when the lock was not acquired
 * @param leave when it left; for a lock not acquired, when the worker gave up
 * @param others the sections already inside one of the resources when this one entered
 * @param read {@code V} the fenced read was accepted, {@code R} rejected, {@code -} not made
 * @param write {@code A} accepted, {@code L} accepted over a newer update (lost update), {@code R} rejected,
 * {@code -} not made
 * @param told whether the worker learned that its lock was lost: the handle was no longer held at the end of
 * the section, or was lost after the release, or a {@code LockLostEvent} for it arrived
 * @param heldUntil the last moment the worker was told the lock was held: when the last {@code isHeld()} that
 * answered true had returned (asked when the section began, every 5 ms while it worked, and at its end); 0 when
 * it never answered true
 * @param exception the simple name of what the lock call threw, or {@code -}
 */
record SectionRecord(String worker, String member, SectionKind kind, List<String> resources, long token,
        long waitStart, long enter, long leave, List<String> others, char read, char write, boolean told,
        long heldUntil, String exception) {

    boolean entered() {
        return this.enter > 0;
    }

    String resource() {
        return this.resources.get(0);
    }

    String format() {
        return String.join("|", this.worker, this.member, this.kind.name(), String.join(",", this.resources),
                Long.toString(this.token), Long.toString(this.waitStart), Long.toString(this.enter),
                Long.toString(this.leave), String.join(",", this.others), String.valueOf(this.read),
                String.valueOf(this.write), this.told ? "1" : "0", Long.toString(this.heldUntil), this.exception);
    }

    static SectionRecord parse(String text) {
        String[] f = text.split("\\|", -1);
        if (f.length != 14) {
            throw new IllegalArgumentException("Not a section record: " + text);
        }
        try {
            return new SectionRecord(f[0], f[1], SectionKind.valueOf(f[2]), list(f[3]), Long.parseLong(f[4]),
                    Long.parseLong(f[5]), Long.parseLong(f[6]), Long.parseLong(f[7]), list(f[8]), f[9].charAt(0),
                    f[10].charAt(0), "1".equals(f[11]), Long.parseLong(f[12]), f[13]);
        }
        catch (IllegalArgumentException | IndexOutOfBoundsException ex) {
            // A bad number, kind or empty outcome: say which line, not just "For input string".
            throw new IllegalArgumentException("Not a section record: " + text + " (" + ex.getMessage() + ")", ex);
        }
    }

    private static List<String> list(String text) {
        return text.isEmpty() ? List.of() : Arrays.asList(text.split(","));
    }
}
