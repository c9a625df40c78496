package io.github.redislock.storekit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.Sharing;

/**
 * An independent record of critical sections, kept by the check outside the store under test: each section is
 * logged with the moment it began and ended (ticks of one counter, so that the order is exact), the application
 * and the fencing token it ran under. Nothing is asked of the lock but its fencing token.
 * <p>
 * It judges the documented promise: no two sections of one key overlap, except readers with readers and up to N
 * holders of a semaphore of N; every section's fencing token is its own, and larger than that of every section of
 * the key that ended before it began and could not have held the key with it (a writer's, or any before a
 * writer's: shares let in together are ordered by when the store let them in, see {@code bothShare}); unless one of the sections ran under a lock its
 * application was told it lost (a holder stalled past its lease is the documented limit, and a lost lock is never
 * silent). So a run on a loaded machine cannot fail by chance, and a store that lets two holders in, or hands out
 * a token out of order, without telling anyone, fails it.
 */
public final class Witness {

    private final AtomicLong ticks = new AtomicLong();

    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

    private final AtomicInteger crowded = new AtomicInteger();

    private final Map<String, Integer> mostInside = new ConcurrentHashMap<>();

    private final ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();

    /**
     * Call first thing inside the section; pass the result to {@link #exit}.
     * @param key the store's key
     * @param fencingToken the token the section runs under for that key
     */
    public Open enter(Application application, String key, long fencingToken) {
        return enter(application, key, fencingToken, Sharing.EXCLUSIVE);
    }

    /**
     * Call first thing inside a section under a shared key's lock: a reader's, or a semaphore permit's.
     * @param sharing how the section holds the key: it may share the key with readers (a read lock) or with up to
     * {@code permits - 1} others (a semaphore)
     */
    public Open enter(Application application, String key, long fencingToken, Sharing sharing) {
        int now = this.inside.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
        this.mostInside.merge(key, now, Math::max);
        if (now > 1) {
            this.crowded.incrementAndGet();
        }
        return new Open(application, key, fencingToken, sharing, this.ticks.incrementAndGet());
    }

    /** The most sections of the key that were inside at once (told losses included). */
    public int mostInside(String key) {
        return this.mostInside.getOrDefault(key, 0);
    }

    /** Call last thing inside the section. */
    public void exit(Open open) {
        long end = this.ticks.incrementAndGet();
        this.inside.get(open.key()).decrementAndGet();
        this.sections.add(new Section(open.application(), open.key(), open.fencingToken(), open.sharing(),
                open.began(), end));
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
     * Every breach of the promise among sections of a key none of whose applications was told its lock lost
     * (asked once the run is over, so that a loss told late still counts): a section that began while a writer was
     * inside, a writer that began while anyone was inside, a semaphore's section that began while all its permits
     * were inside, or a section with a fencing token not larger than that of one that ended before it began.
     */
    public List<String> breaches() {
        Map<String, List<Section>> byKey = new TreeMap<>();
        for (Section section : this.sections) {
            if (!section.application.told(section.key, section.fencingToken)) {
                byKey.computeIfAbsent(section.key, (key) -> new ArrayList<>()).add(section);
            }
        }
        List<String> breaches = new ArrayList<>();
        for (List<Section> sections : byKey.values()) {
            sections.sort(Comparator.comparingLong(Section::began));
            for (int i = 0; i < sections.size(); i++) {
                Section later = sections.get(i);
                List<Section> inside = new ArrayList<>();
                for (int j = 0; j < i; j++) {
                    Section earlier = sections.get(j);
                    if (later.began < earlier.ended) {
                        inside.add(earlier);
                    }
                    else if (later.fencingToken == earlier.fencingToken
                            || (later.fencingToken < earlier.fencingToken && !bothShare(earlier, later))) {
                        breaches.add(later + " began after " + earlier + " ended, with a fencing token not larger");
                    }
                }
                String crowd = crowding(later, inside);
                if (crowd != null) {
                    breaches.add(later + " began while " + crowd);
                }
            }
        }
        return breaches;
    }

    /**
     * Whether two sections could have held the key together (readers, or permits of one semaphore): their order
     * of fencing tokens is the order in which the store let them in, which no store can tie to when their sections
     * begin (a holder let in first may start its section after a later one ended hers). Every other pair
     * excludes each other, so the later one was let in after the earlier one was released.
     */
    private static boolean bothShare(Section earlier, Section later) {
        return !earlier.sharing.isExclusive() && earlier.sharing.equals(later.sharing);
    }

    /** What was wrong about the sections inside when {@code later} began; {@code null}: nothing. */
    private static @Nullable String crowding(Section later, List<Section> inside) {
        for (Section earlier : inside) {
            if (earlier.fencingToken == later.fencingToken) {
                return earlier + " was inside with the same fencing token";
            }
            if (earlier.sharing.isExclusive() || later.sharing.isExclusive()
                    || earlier.sharing.isRead() != later.sharing.isRead()) {
                return earlier + " was inside";
            }
        }
        if (later.sharing.isSemaphore() && inside.size() >= later.sharing.permits()) {
            return inside.size() + " sections were inside, all " + later.sharing.permits() + " permits: " + inside;
        }
        return null;
    }

    /** A section that began ({@code began}: its tick) and has not ended yet. */
    public record Open(Application application, String key, long fencingToken, Sharing sharing, long began) {
    }

    private record Section(Application application, String key, long fencingToken, Sharing sharing, long began,
            long ended) {

        @Override
        public String toString() {
            return "the section of " + this.application + " on " + this.key + " (" + this.sharing + ", fence "
                    + this.fencingToken + ", ticks " + this.began + "-" + this.ended + ")";
        }
    }
}
