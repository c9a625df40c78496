package io.github.redislock.storekit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An independent record of critical sections, kept by the check outside the store under test: each section is
 * logged with the moment it began and ended (ticks of one counter, so that the order is exact), the application
 * and the fencing token it ran under. Nothing is asked of the lock but its fencing token.
 * <p>
 * It judges the documented promise: no two sections of one key overlap, and a section's fencing token is larger
 * than that of every section of the key that began before it; unless one of the two sections ran under a lock its
 * application was told it lost (a holder stalled past its lease is the documented limit, and a lost lock is never
 * silent). So a run on a loaded machine cannot fail by chance, and a store that lets two holders in, or hands out
 * a token out of order, without telling anyone, fails it.
 */
public final class Witness {

    private final AtomicLong ticks = new AtomicLong();

    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

    private final AtomicInteger crowded = new AtomicInteger();

    private final ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();

    /**
     * Call first thing inside the section; pass the result to {@link #exit}.
     * @param key the store's key
     * @param fencingToken the token the section runs under for that key
     */
    public Open enter(Application application, String key, long fencingToken) {
        if (this.inside.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet() > 1) {
            this.crowded.incrementAndGet();
        }
        return new Open(application, key, fencingToken, this.ticks.incrementAndGet());
    }

    /** Call last thing inside the section. */
    public void exit(Open open) {
        long end = this.ticks.incrementAndGet();
        this.inside.get(open.key()).decrementAndGet();
        this.sections.add(new Section(open.application(), open.key(), open.fencingToken(), open.began(), end));
    }

    /** How many sections were logged. */
    public int sections() {
        return this.sections.size();
    }

    /** How often a section began while another of its key was inside (told losses included). */
    public int crowded() {
        return this.crowded.get();
    }

    /**
     * Every breach of the promise between two sections of a key neither of whose applications was told its lock
     * lost (asked once the run is over, so that a loss told late still counts): an overlap, or a later section
     * with a fencing token not larger than an earlier one's.
     */
    public List<String> breaches() {
        List<Section> untold = new ArrayList<>();
        for (Section section : this.sections) {
            if (!section.application.told(section.key, section.fencingToken)) {
                untold.add(section);
            }
        }
        untold.sort(Comparator.comparingLong(Section::began));
        List<String> breaches = new ArrayList<>();
        for (int i = 0; i < untold.size(); i++) {
            Section earlier = untold.get(i);
            for (int j = i + 1; j < untold.size(); j++) {
                Section later = untold.get(j);
                if (!later.key.equals(earlier.key)) {
                    continue;
                }
                if (later.began < earlier.ended) {
                    breaches.add(later + " began while " + earlier + " was inside");
                }
                if (later.fencingToken <= earlier.fencingToken) {
                    breaches.add(later + " began after " + earlier + " with a fencing token not larger");
                }
            }
        }
        return breaches;
    }

    /** A section that began ({@code began}: its tick) and has not ended yet. */
    public record Open(Application application, String key, long fencingToken, long began) {
    }

    private record Section(Application application, String key, long fencingToken, long began, long ended) {

        @Override
        public String toString() {
            return "the section of " + this.application + " on " + this.key + " (fence " + this.fencingToken + ", ticks "
                    + this.began + "-" + this.ended + ")";
        }
    }
}
