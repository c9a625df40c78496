package io.github.redislock.torture;

import io.github.redislock.LockMode;
import io.github.redislock.LockRequest;

import org.jspecify.annotations.Nullable;

/**
 * What a section of a shared workload ({@link Workload}) holds on its resources: a write lock ({@code W}), a read
 * lock ({@code R}) or one permit of a semaphore of {@code permits} ({@code P<permits>}). The code ends the section's
 * member ({@code w1:t3:17:R}), so that the witness's script and the verdict both read it from there; a section of
 * the exclusive workload has a member of three parts and no share.
 *
 * @param code {@code W}, {@code R} or {@code P<permits>}
 * @param permits how many holders the key admits: 1 for a read or write lock (readers share it all the same)
 */
record Share(String code, int permits) {

    static final Share WRITE = new Share("W", 1);

    static final Share READ = new Share("R", 1);

    static Share permit(int permits) {
        return new Share("P" + permits, permits);
    }

    /** The share a member ends with; null for a member of the exclusive workload. */
    static @Nullable Share of(String member) {
        String[] parts = member.split(":");
        if (parts.length != 4) {
            return null;
        }
        String code = parts[3];
        if (code.equals("W")) {
            return WRITE;
        }
        if (code.equals("R")) {
            return READ;
        }
        if (code.matches("P[1-9][0-9]{0,4}")) {
            return permit(Integer.parseInt(code.substring(1)));
        }
        throw new IllegalArgumentException("Not a shared section's member: " + member);
    }

    /** Whether a member's section held a permit of a semaphore: its breaches are judged as a group. */
    static boolean isPermit(String member) {
        Share share = of(member);
        return share != null && share.isPermit();
    }

    boolean isPermit() {
        return this.code.startsWith("P");
    }

    boolean isReader() {
        return this.code.equals("R");
    }

    /** The request for this share: the same request in READ mode, or as a permit of the semaphore. */
    LockRequest applyTo(LockRequest request) {
        if (isPermit()) {
            return request.permits(this.permits);
        }
        return isReader() ? request.mode(LockMode.READ) : request;
    }

    /** The member of a section holding this share. */
    String member(String section) {
        return section + ":" + this.code;
    }
}
