package io.github.redislock.torture;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What the witness showed for one scenario, and the verdict: {@link #failures()} empty means it passed.
 *
 * @param scenario the scenario
 * @param client the workers' client library
 * @param topology what the workers locked on
 * @param fault what the nemesis did
 * @param attempts lock calls made
 * @param sections critical sections entered
 * @param overlaps pairs of sections inside one resource at once
 * @param untoldOverlaps of those, pairs where neither section's worker learned that its lock was lost
 * @param lateOverlaps of the others, pairs where the worker told learned it only after the second section had
 * entered (see {@link Verdict})
 * @param accepted fenced writes accepted, per worker
 * @param rejected sections whose fenced read or write was rejected, per worker
 * @param lostUpdates accepted writes that overwrote an update they had not read
 * @param staleTokens sections that entered after another section of the resource had left, with a fencing token
 * not above that section's
 * @param staleAccepted of those, sections whose write the fencing store accepted
 * @param recoveryMicros from the end of the fault until every resource had been entered again; null when some
 * never was (or for the healthy run, 0)
 * @param longestIdleMicros the longest time a resource was free while a section waited for it, outside the fault
 * and its recovery
 * @param exceptions what the lock calls threw, by type
 * @param lossSignals {@code LockLostEvent}s, by how the loss was detected
 * @param failures the rules broken, each a sentence
 * @param wallTime how long the scenario took, start-up included
 * @param measures throughput, waits and recoveries, for the report's notes
 * @param notRun why the scenario did not run: skipped, since this machine cannot run it (then nothing failed), or
 * failed to start (then {@code failures} says so); null when it ran
 * @param terms the leader election workload's terms, judged; null in the other workloads
 */
record ScenarioResult(Scenario scenario, String client, String topology, Fault fault, int attempts, int sections, int overlaps,
        int untoldOverlaps, int lateOverlaps, Map<String, Integer> accepted, Map<String, Integer> rejected, int lostUpdates,
        int staleTokens, int staleAccepted, @Nullable Long recoveryMicros, long longestIdleMicros,
        Map<String, Long> exceptions, Map<String, Long> lossSignals, List<String> failures, Duration wallTime,
        Measures measures, @Nullable String notRun, @Nullable TermVerdict terms) {

    /** A scenario this machine cannot run (see {@link Scenario.Requirement}): neither passed nor failed. */
    static ScenarioResult skipped(Scenario scenario, String client, String reason) {
        return new ScenarioResult(scenario, client, "-", Fault.none(0), 0, 0, 0, 0, 0, Map.of(), Map.of(), 0, 0, 0, null,
                0, Map.of(), Map.of(), List.of(), Duration.ZERO, Measures.NONE, reason, null);
    }

    /**
     * A scenario that could not be set up or run to its verdict (a server or worker that did not start, a fault
     * that could not be injected): it failed, and the rest of the run goes on.
     */
    static ScenarioResult failedToRun(Scenario scenario, String client, String reason, Duration wallTime) {
        return new ScenarioResult(scenario, client, "-", Fault.none(0), 0, 0, 0, 0, 0, Map.of(), Map.of(), 0, 0, 0, null,
                0, Map.of(), Map.of(), List.of("did not run to its verdict: " + reason), wallTime, Measures.NONE,
                reason, null);
    }

    /** True when it ran and broke no rule; a skipped scenario did not pass (nor fail: see {@link #failed()}). */
    boolean passed() {
        return this.notRun == null && this.failures.isEmpty();
    }

    /** True when this machine cannot run it: neither passed nor failed. */
    boolean skipped() {
        return this.notRun != null && this.failures.isEmpty();
    }

    boolean failed() {
        return !this.failures.isEmpty();
    }

    int acceptedTotal() {
        return this.accepted.values().stream().mapToInt(Integer::intValue).sum();
    }

    int rejectedTotal() {
        return this.rejected.values().stream().mapToInt(Integer::intValue).sum();
    }

    /**
     * What the report's notes measure beyond the verdict.
     *
     * @param sectionsPerSecond sections entered per second during the fault (the healthy run: during the run)
     * @param waitMedianMicros the median wait, lock call to entering, of the sections that entered then
     * @param waitP99Micros the 99th percentile of those waits
     * @param longestFailedCallMicros the longest lock call that threw anything but
     * {@code LockNotAcquiredException} (a lock not got within its wait is not a failure), 0 when none did
     * @param rejoinMicros when the fault hit some workers and spared others: from its end until each worker it
     * hit had entered a section again (the slowest one); null when none was hit alone, or one never did
     */
    record Measures(double sectionsPerSecond, long waitMedianMicros, long waitP99Micros, long longestFailedCallMicros,
            @Nullable Long rejoinMicros) {

        static final Measures NONE = new Measures(0, 0, 0, 0, null);
    }
}
