package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the sections whose fencing token is not above that of a section of the same resource that they must have
 * followed. Only a section's first resource carries its token. Tokens grow with every acquisition of a key, so a
 * section must have a larger token than:
 * <ul>
 * <li>any section that left before it entered, when one of the two holds the key alone (a plain lock, a writer):
 * nothing else could have held it meanwhile, so the later one was acquired after the earlier one's release;</li>
 * <li>any section that left before it began waiting, when both may hold the key together (two readers, two permits):
 * one of them may have been acquired first and have entered the witness last, but not before the other began to
 * wait.</li>
 * </ul>
 */
final class StaleTokens {

    private StaleTokens() {
    }

    static List<SectionRecord> in(List<SectionRecord> entered) {
        Map<String, List<SectionRecord>> byResource = new HashMap<>();
        entered.forEach((record) -> byResource.computeIfAbsent(record.resource(), (r) -> new ArrayList<>()).add(record));
        List<SectionRecord> stale = new ArrayList<>();
        for (List<SectionRecord> sections : byResource.values()) {
            Departures all = new Departures(sections);
            Departures alone = new Departures(sections.stream().filter(StaleTokens::alone).toList());
            for (SectionRecord record : sections) {
                long follows = alone(record) ? all.highestBefore(record.enter())
                        : Math.max(alone.highestBefore(record.enter()), all.highestBefore(record.waitStart()));
                // A leader's sections of one term share its token: only a lower one is stale (a term shared by
                // two workers is a failure of its own, see TermVerdict).
                boolean below = (record.kind() == SectionKind.LEADER) ? record.token() < follows
                        : record.token() <= follows;
                if (below) {
                    stale.add(record);
                }
            }
        }
        return stale;
    }

    /** Whether the section held its key alone: a plain lock or a write lock, not a read lock or a permit. */
    private static boolean alone(SectionRecord record) {
        Share share = Share.of(record.member());
        return share == null || !(share.isReader() || share.isPermit());
    }

    /** Sections by when they left, with the highest token of those that had left by each. */
    private static final class Departures {

        private final long[] leaves;

        private final long[] highest;

        Departures(List<SectionRecord> sections) {
            List<SectionRecord> byLeave = new ArrayList<>(sections);
            byLeave.sort(Comparator.comparingLong(SectionRecord::leave));
            this.leaves = new long[byLeave.size()];
            this.highest = new long[byLeave.size()];
            long max = Long.MIN_VALUE;
            for (int i = 0; i < byLeave.size(); i++) {
                max = Math.max(max, byLeave.get(i).token());
                this.leaves[i] = byLeave.get(i).leave();
                this.highest[i] = max;
            }
        }

        /** The highest token of the sections that left strictly before {@code micros}; below any when none did. */
        long highestBefore(long micros) {
            int low = 0;
            int high = this.leaves.length;
            while (low < high) {
                int middle = (low + high) >>> 1;
                if (this.leaves[middle] < micros) {
                    low = middle + 1;
                }
                else {
                    high = middle;
                }
            }
            return (low == 0) ? Long.MIN_VALUE : this.highest[low - 1];
        }
    }
}
