package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The overlaps the witness found, and whether each was told in time (see {@link Verdict}). A section's
 * {@link SectionRecord#others()} are the sections whose presence broke its keys' bound when it entered:
 * <ul>
 * <li>a plain lock, a writer or a reader: each other section is an overlap of its own, a pair of which one holder
 * at least must have lost its lock, so one of the two must have been told;</li>
 * <li>a permit of a semaphore of n that found n or more inside: one overlap, of all of them together. One of them
 * at least must have lost its permit, not any particular one, so it is told when any of them was told.</li>
 * </ul>
 *
 * @param total overlaps found
 * @param untold of those, overlaps of which no section's worker was told that its lock was lost
 * @param late of the others, overlaps whose told sections were all still told "held" after the overlap began
 */
record Overlaps(int total, int untold, int late) {

    static Overlaps in(List<SectionRecord> entered) {
        Map<String, SectionRecord> byMember = new HashMap<>();
        entered.forEach((record) -> byMember.put(record.member(), record));
        int total = 0;
        int untold = 0;
        int late = 0;
        for (SectionRecord record : entered) {
            List<List<String>> overlaps = new ArrayList<>();
            if (Share.isPermit(record.member())) {
                if (!record.others().isEmpty()) {
                    overlaps.add(record.others());
                }
            }
            else {
                record.others().forEach((other) -> overlaps.add(List.of(other)));
            }
            for (List<String> others : overlaps) {
                total++;
                List<SectionRecord> inside = new ArrayList<>(List.of(record));
                // A section with no record of its own (a killed worker's last) was told nothing.
                others.stream().map(byMember::get).filter((r) -> r != null).forEach(inside::add);
                if (inside.stream().noneMatch(SectionRecord::told)) {
                    untold++;
                }
                else if (inside.stream().noneMatch((section) -> toldBy(section, record.enter()))) {
                    late++;
                }
            }
        }
        return new Overlaps(total, untold, late);
    }

    /**
     * Whether the section's worker was told its lock was lost and its {@code isHeld()} answered true no later than
     * {@code micros}. Both times are on the witness's clock; the worker's is behind it by at most the round trip
     * that anchored it (see {@link SectionRecord}), a fraction of a millisecond, which is all the benefit of the
     * doubt this gives.
     */
    private static boolean toldBy(SectionRecord section, long micros) {
        return section.told() && section.heldUntil() <= micros;
    }
}
