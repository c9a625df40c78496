package io.github.redislock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * Judges a scenario from the witness's records alone. Rules that hold in every scenario:
 * <ul>
 * <li>an overlap must have been told: at least one of the two sections' workers learned that its lock was lost
 * ({@code isHeld()} false at the end of its section, {@code isLost()} after the release, or a
 * {@code LockLostEvent}); on the shared workloads an overlap is a breach of the key's bound, a writer beside
 * anyone or more holders than permits, told when one of the sections in it was (see {@link Overlaps});</li>
 * <li>and told in time: that worker's {@code isHeld()} never answered true after the overlap began, that is after
 * the second section entered ({@link SectionRecord#heldUntil()} not after its entry: the library said the lock was
 * gone, at the latest when the lease ran out by that JVM's own clock, before anyone else could take it). Where
 * the store itself forgets a lock before its lease ends ({@link #STORE_FORGETS}: Redis restarted empty, a replica
 * without the lock promoted, Redis's clock jumping ahead, Redlock nodes restarted empty), no client can know
 * before it next asks the store, and the holder is told at its next renewal round or its release: those
 * overlaps are counted as told late, and only an untold one fails;</li>
 * <li>a rejected write comes only from a worker the fault hit;</li>
 * <li>no lost update, and no stale write accepted: a section that entered after another one had left, with a
 * fencing token not above that one's (see {@link StaleTokens} for sections that share a key), must have had its
 * read or write rejected by the fencing store (such stale
 * tokens are counted in every scenario: a lock passed on by a release inside an application does not ask Redis,
 * so after Redis lost the key the next local holder runs with a stale token, which the store then refuses);</li>
 * <li>progress: every resource is entered again within 3 leases after the fault ends;</li>
 * <li>every worker not killed on purpose stops when told and exits 0; the healthy run throws nothing.</li>
 * </ul>
 * A {@link Scenario#isStrict() strict} scenario also allows no overlap and no rejected write at all. In the leader
 * election workload the workers' terms are judged too ({@link TermVerdict}).
 */
final class Verdict {

    /**
     * Scenarios whose fault makes the store forget a lock before its lease ends, where an overlap can only be told
     * after it began (see the class Javadoc). Every other scenario, a new one too, must tell in time.
     */
    static final Set<Scenario> STORE_FORGETS = EnumSet.of(Scenario.REDIS_RESTART, Scenario.SENTINEL_FAILOVER,
            Scenario.REDIS_CLOCK_JUMP, Scenario.REDLOCK_FAULTS, Scenario.CLUSTER_FAILOVER, Scenario.SENTINEL_PARTITION);

    private final Scenario scenario;

    private final Fault fault;

    private final Duration lease;

    private final List<SectionRecord> records;

    private final List<String> failures = new ArrayList<>();

    Verdict(Scenario scenario, Fault fault, Duration lease, List<SectionRecord> records) {
        this.scenario = scenario;
        this.fault = fault;
        this.lease = lease;
        this.records = records;
    }

    /** The leader election workload's terms; empty in the others. */
    private List<TermRecord> terms = List.of();

    /** The workers' terms, in the leader election workload: judged by {@link TermVerdict}. */
    Verdict terms(List<TermRecord> terms) {
        this.terms = List.copyOf(terms);
        return this;
    }

    /** A failure found outside the records: a worker that crashed or did not stop. */
    void fail(String failure) {
        this.failures.add(failure);
    }

    ScenarioResult judge(String client, String topology, Map<String, Long> exceptions, Map<String, Long> lossSignals,
            Duration wallTime) {
        List<SectionRecord> entered = this.records.stream().filter(SectionRecord::entered).toList();
        Overlaps found = Overlaps.in(entered);
        int overlaps = found.total();
        int untold = found.untold();
        int late = found.late();
        Map<String, Integer> accepted = new TreeMap<>();
        Map<String, Integer> rejected = new TreeMap<>();
        int lostUpdates = 0;
        for (SectionRecord record : entered) {
            if (record.write() == 'A' || record.write() == 'L') {
                accepted.merge(record.worker(), 1, Integer::sum);
            }
            if (record.read() == 'R' || record.write() == 'R') {
                rejected.merge(record.worker(), 1, Integer::sum);
            }
            if (record.write() == 'L') {
                lostUpdates++;
            }
        }
        List<SectionRecord> stale = StaleTokens.in(entered);
        int staleAccepted = (int) stale.stream().filter((r) -> r.write() == 'A' || r.write() == 'L').count();
        Long recovery = recovery(entered);
        long idle = longestIdle(recovery);

        if (entered.isEmpty()) {
            fail("no section ran");
        }
        if (untold > 0) {
            fail(untold + " overlap(s) that no worker was told about");
        }
        if (late > 0 && !STORE_FORGETS.contains(this.scenario.fault())) {
            fail(late + " overlap(s) told only after they began (isHeld() still true once the other section had "
                    + "entered)");
        }
        if (this.scenario.isStrict() && overlaps > 0) {
            fail(overlaps + " overlap(s) in a scenario that allows none");
        }
        if (this.scenario.isStrict() && !rejected.isEmpty()) {
            fail(rejected.values().stream().mapToInt(Integer::intValue).sum()
                    + " rejected write(s) in a scenario that allows none");
        }
        rejected.keySet().stream().filter((worker) -> !this.fault.faulted().contains(worker))
            .forEach((worker) -> fail("writes of " + worker + ", which no fault hit, were rejected"));
        if (lostUpdates > 0) {
            fail(lostUpdates + " lost update(s)");
        }
        if (staleAccepted > 0) {
            fail(staleAccepted + " write(s) accepted from sections with a fencing token not above an earlier "
                    + "section's");
        }
        if (!this.scenario.faultFree() && (recovery == null || recovery > 3 * this.lease.toNanos() / 1000)) {
            fail("no progress on every resource within 3 leases after the fault");
        }
        if (this.scenario.faultFree() && !exceptions.isEmpty()) {
            fail("lock calls threw in a healthy run: " + exceptions);
        }
        TermVerdict terms = null;
        if (this.scenario.workload() == Workload.LEADER) {
            terms = TermVerdict.of(this.terms, entered);
            terms.failures(this.scenario).forEach(this::fail);
        }
        return new ScenarioResult(this.scenario, client, topology, this.fault, this.records.size(), entered.size(), overlaps,
                untold, late, accepted, rejected, lostUpdates, stale.size(), staleAccepted, recovery, idle, exceptions,
                lossSignals, List.copyOf(this.failures), wallTime, measures(entered), null, terms);
    }

    /**
     * Throughput and waits during the fault (the healthy run: during the run), the longest lock call that failed,
     * and how long the workers the fault hit alone took to enter a section again after it.
     */
    private ScenarioResult.Measures measures(List<SectionRecord> entered) {
        long from = this.fault.isNone() ? entered.stream().mapToLong(SectionRecord::enter).min().orElse(0)
                : this.fault.start();
        long to = this.fault.isNone() ? entered.stream().mapToLong(SectionRecord::leave).max().orElse(0)
                : this.fault.end();
        long[] waits = entered.stream().filter((r) -> r.enter() >= from && r.enter() <= to)
            .mapToLong((r) -> r.enter() - r.waitStart()).sorted().toArray();
        double rate = (to > from) ? waits.length * 1_000_000.0 / (to - from) : 0;
        long longestFailed = this.records.stream()
            .filter((r) -> !r.exception().equals("-") && !r.exception().equals("LockNotAcquiredException"))
            .mapToLong((r) -> r.leave() - r.waitStart()).max().orElse(0);
        return new ScenarioResult.Measures(rate, percentile(waits, 50), percentile(waits, 99), longestFailed,
                rejoin(entered));
    }

    private static long percentile(long[] sorted, int percent) {
        return (sorted.length == 0) ? 0 : sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)];
    }

    private @Nullable Long rejoin(List<SectionRecord> entered) {
        Set<String> workers = entered.stream().map(SectionRecord::worker).collect(Collectors.toSet());
        Set<String> hit = this.fault.faulted();
        if (hit.isEmpty() || hit.containsAll(workers) || this.scenario == Scenario.WORKER_KILL) {
            return null;
        }
        long slowest = 0;
        for (String worker : hit) {
            OptionalLong first = entered.stream().filter((r) -> r.worker().equals(worker) && r.enter() >= this.fault.end())
                .mapToLong(SectionRecord::enter).min();
            if (first.isEmpty()) {
                return null;
            }
            slowest = Math.max(slowest, first.getAsLong() - this.fault.end());
        }
        return slowest;
    }

    /** Microseconds from the fault's end until every resource had been entered again; null if one never was. */
    private @Nullable Long recovery(List<SectionRecord> entered) {
        if (this.scenario.faultFree()) {
            return 0L;
        }
        Map<String, Long> firstAfter = new HashMap<>();
        for (SectionRecord record : entered) {
            if (record.enter() >= this.fault.end()) {
                for (String resource : record.resources()) {
                    firstAfter.merge(resource, record.enter(), Math::min);
                }
            }
        }
        long resources = this.records.stream().flatMap((r) -> r.resources().stream()).distinct().count();
        if (firstAfter.size() < resources) {
            return null;
        }
        return firstAfter.values().stream().mapToLong((enter) -> enter - this.fault.end()).max().orElse(0);
    }

    /**
     * The longest time a resource was free while some attempt waited for it, by a sweep over the entries,
     * exits, waits and give-ups of each resource; gaps that touch the fault or its recovery do not count. A
     * two-key attempt counts as inside its resources from the start of its wait, so this measures hand-offs,
     * not the time a two-key section holds its first key while it waits for the second. Counting starts with
     * a resource's first section: until then the workers' first calls are connecting.
     */
    private long longestIdle(@Nullable Long recovery) {
        long excludedFrom = this.fault.start();
        long excludedTo = this.fault.end() + ((recovery != null) ? recovery : Long.MAX_VALUE / 4);
        Map<String, List<long[]>> events = new HashMap<>();
        for (SectionRecord record : this.records) {
            for (String resource : record.resources()) {
                List<long[]> list = events.computeIfAbsent(resource, (r) -> new ArrayList<>());
                if (record.kind() == SectionKind.MULTI_KEY) {
                    // It takes its keys one by one and holds the first while it waits for the second: the
                    // resource is not free then, though no section is inside. Counted as occupied throughout.
                    list.add(new long[] { record.waitStart(), 0, 1, 0 });
                    list.add(new long[] { record.leave(), 3, -1, 0 });
                    continue;
                }
                long waitEnd = record.entered() ? record.enter() : record.leave();
                // {time, order at equal times, occupancy change, waiting change}: enter before the wait ends.
                list.add(new long[] { record.waitStart(), 2, 0, 1 });
                list.add(new long[] { waitEnd, 1, 0, -1 });
                if (record.entered()) {
                    list.add(new long[] { record.enter(), 0, 1, 0 });
                    list.add(new long[] { record.leave(), 3, -1, 0 });
                }
            }
        }
        long longest = 0;
        for (List<long[]> list : events.values()) {
            list.sort(Comparator.<long[]>comparingLong((e) -> e[0]).thenComparingLong((e) -> e[1]));
            int inside = 0;
            int waiting = 0;
            long idleSince = -1;
            boolean started = false;
            for (long[] event : list) {
                inside += (int) event[2];
                waiting += (int) event[3];
                // Before the first section entered, the workers' first calls are still connecting to Redis.
                started |= inside > 0;
                boolean idle = started && inside == 0 && waiting > 0;
                if (idle && idleSince < 0) {
                    idleSince = event[0];
                }
                else if (!idle && idleSince >= 0) {
                    boolean touchesFault = !this.fault.isNone() && idleSince < excludedTo && event[0] > excludedFrom;
                    if (!touchesFault) {
                        longest = Math.max(longest, event[0] - idleSince);
                    }
                    idleSince = -1;
                }
            }
        }
        return longest;
    }
}
