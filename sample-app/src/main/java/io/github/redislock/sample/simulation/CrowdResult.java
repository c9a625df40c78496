package io.github.redislock.sample.simulation;

import java.time.Duration;
import java.util.Arrays;

/**
 * What the buyers saw: one HTTP status and one latency per buyer, and the wall time of the whole crowd.
 * Status {@code 0} means no response at all (connection failure, timeout).
 */
public final class CrowdResult {

    private final int[] statuses;

    private final int[] instanceOfBuyer;

    private final long[] sortedLatencyNanos;

    private final long wallNanos;

    CrowdResult(int[] statuses, int[] instanceOfBuyer, long[] latencyNanos, long wallNanos) {
        this.statuses = statuses;
        this.instanceOfBuyer = instanceOfBuyer;
        this.sortedLatencyNanos = latencyNanos.clone();
        Arrays.sort(this.sortedLatencyNanos);
        this.wallNanos = wallNanos;
    }

    public int buyers() {
        return this.statuses.length;
    }

    /** How many buyers got this HTTP status. */
    public int count(int status) {
        return (int) Arrays.stream(this.statuses).filter((s) -> s == status).count();
    }

    /** Buyers who got a status other than the expected ones (201, 409, 410), or no response. */
    public int unexpected() {
        return buyers() - count(201) - count(409) - count(410);
    }

    /** Successful purchases (201) served by the instance at this index. */
    public int soldVia(int instance) {
        int sold = 0;
        for (int i = 0; i < this.statuses.length; i++) {
            if (this.statuses[i] == 201 && this.instanceOfBuyer[i] == instance) {
                sold++;
            }
        }
        return sold;
    }

    public Duration wallTime() {
        return Duration.ofNanos(this.wallNanos);
    }

    /** Requests per second over the wall time. */
    public double throughput() {
        return buyers() / (this.wallNanos / 1e9);
    }

    /** Request latency at the given percentile (0 to 100), nearest rank. */
    public Duration latencyPercentile(double percentile) {
        int rank = (int) Math.ceil(percentile / 100.0 * this.sortedLatencyNanos.length);
        int index = Math.min(this.sortedLatencyNanos.length - 1, Math.max(0, rank - 1));
        return Duration.ofNanos(this.sortedLatencyNanos[index]);
    }
}
