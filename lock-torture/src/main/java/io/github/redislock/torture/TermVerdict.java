package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges the leader election workload's terms ({@link TermRecord}) as the suite judges locks: two workers told at
 * once that they lead are an overlap of terms, which the earlier leader must have been told in time.
 * <ul>
 * <li><b>Two told leaders</b>: a term B granted to one worker while another worker's earlier term A was still told
 * it leads (A's last {@code isLeader()} true, or the last {@code isHeld()} true of its {@code @LeaderOnly} sections
 * in that term, after B's grant). None may be untold (A never revoked {@code LOST}); where the store forgets the
 * election's lock ({@link Verdict#STORE_FORGETS}), no client can know before it next asks the store, and such a
 * pair told late (A revoked {@code LOST} afterwards) is counted, not failed;</li>
 * <li><b>terms increase</b>: in the order they were granted, each term is greater than every earlier one (and no
 * two workers share one).</li>
 * </ul>
 *
 * @param terms the terms granted
 * @param reasons how they ended, by the revocation's reason ({@code -}: still leading at the worker's stop)
 * @param twoLeaders pairs of terms of different workers both told they lead at one moment
 * @param untold of those, pairs whose earlier leader was never told it lost its term
 * @param late of the others, pairs told only after the later term's grant (all of them, by definition)
 * @param decreasing the terms granted after a term not below them, each as {@code w2:17 after w1:18}
 */
record TermVerdict(int terms, Map<String, Integer> reasons, int twoLeaders, int untold, int late,
        List<String> decreasing) {

    static TermVerdict of(List<TermRecord> records, List<SectionRecord> sections) {
        Map<String, Long> sectionsHeldUntil = new HashMap<>();
        for (SectionRecord section : sections) {
            if (section.kind() == SectionKind.LEADER) {
                sectionsHeldUntil.merge(section.worker() + "|" + section.token(), section.heldUntil(), Math::max);
            }
        }
        List<TermRecord> byGrant = new ArrayList<>(records);
        byGrant.sort(Comparator.comparingLong(TermRecord::granted));
        Map<String, Integer> reasons = new TreeMap<>();
        int twoLeaders = 0;
        int untold = 0;
        List<String> decreasing = new ArrayList<>();
        TermRecord highest = null;
        for (int b = 0; b < byGrant.size(); b++) {
            TermRecord later = byGrant.get(b);
            reasons.merge(later.reason(), 1, Integer::sum);
            if (highest != null && later.term() <= highest.term()) {
                decreasing.add(later.worker() + ":" + later.term() + " after " + highest.worker() + ":" + highest.term());
            }
            if (highest == null || later.term() > highest.term()) {
                highest = later;
            }
            for (int a = 0; a < b; a++) {
                TermRecord earlier = byGrant.get(a);
                long toldUntil = Math.max(earlier.leaderUntil(),
                        sectionsHeldUntil.getOrDefault(earlier.worker() + "|" + earlier.term(), 0L));
                if (!earlier.worker().equals(later.worker()) && toldUntil > later.granted()) {
                    twoLeaders++;
                    if (!earlier.toldLost()) {
                        untold++;
                    }
                }
            }
        }
        return new TermVerdict(records.size(), reasons, twoLeaders, untold, twoLeaders - untold,
                List.copyOf(decreasing));
    }

    /** The rules broken, each a sentence; empty when the terms pass. */
    List<String> failures(Scenario scenario) {
        List<String> failures = new ArrayList<>();
        if (this.terms == 0) {
            failures.add("no term was granted");
        }
        if (this.untold > 0) {
            failures.add(this.untold + " time(s) two workers were told they led at once and the earlier one was "
                    + "never told it lost its term");
        }
        if (this.late > 0 && !Verdict.STORE_FORGETS.contains(scenario.fault())) {
            failures.add(this.late + " time(s) two workers were told they led at once (the earlier one told it lost "
                    + "its term only after the other's grant)");
        }
        if (!this.decreasing.isEmpty()) {
            failures.add("terms not increasing: " + String.join(", ", this.decreasing));
        }
        return failures;
    }
}
