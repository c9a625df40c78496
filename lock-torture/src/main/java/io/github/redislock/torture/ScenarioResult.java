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
 */
record ScenarioResult(Scenario scenario, String client, String topology, Fault fault, int attempts, int sections, int overlaps,
        int untoldOverlaps, Map<String, Integer> accepted, Map<String, Integer> rejected, int lostUpdates,
        int staleTokens, int staleAccepted, @Nullable Long recoveryMicros, long longestIdleMicros,
        Map<String, Long> exceptions, Map<String, Long> lossSignals, List<String> failures, Duration wallTime) {

    boolean passed() {
        return this.failures.isEmpty();
    }

    int acceptedTotal() {
        return this.accepted.values().stream().mapToInt(Integer::intValue).sum();
    }

    int rejectedTotal() {
        return this.rejected.values().stream().mapToInt(Integer::intValue).sum();
    }
}
