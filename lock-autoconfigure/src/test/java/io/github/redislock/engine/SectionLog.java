package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongBinaryOperator;

/**
 * An independent record of who asked for which key when, and when they were inside: the lock under test is
 * never asked whether it worked. From it: overlapping sections, how long a key lay free while somebody was
 * asking for it, and how the sections were shared among applications.
 */
final class SectionLog {

    /**
     * One call that got in: asked (just before calling the lock), entered and left (inside the lock), and the
     * fencing token the lock gave it.
     */
    record Section(int application, String key, long askedAt, long enteredAt, long exitedAt, long fence) {
    }

    /** One call that did not get in. */
    record Failure(int application, String key, long askedAt, long endedAt, Throwable exception) {
    }

    private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

    private final AtomicInteger maxInside = new AtomicInteger();

    private final ConcurrentLinkedQueue<Section> sections = new ConcurrentLinkedQueue<>();

    private final ConcurrentLinkedQueue<Failure> failures = new ConcurrentLinkedQueue<>();

    /** First thing inside the critical section; pass the result to {@link #exit}. */
    long enter(String key) {
        int now = this.inside.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
        this.maxInside.accumulateAndGet(now, Math::max);
        return System.nanoTime();
    }

    /** Last thing inside the critical section. */
    void exit(int application, String key, long askedAt, long enteredAt, long fence) {
        long exitedAt = System.nanoTime();
        this.inside.get(key).decrementAndGet();
        this.sections.add(new Section(application, key, askedAt, enteredAt, exitedAt, fence));
    }

    void failed(int application, String key, long askedAt, Throwable exception) {
        this.failures.add(new Failure(application, key, askedAt, System.nanoTime(), exception));
    }

    int sections() {
        return this.sections.size();
    }

    List<Failure> failures() {
        return List.copyOf(this.failures);
    }

    /** The most sections ever inside one key at the same moment (1 means mutual exclusion held). */
    int maxConcurrent() {
        return this.maxInside.get();
    }

    /** Pairs of sections on the same key whose time intervals overlap. */
    int overlappingPairs() {
        int overlaps = 0;
        for (List<Section> onKey : byKey().values()) {
            long latestExit = Long.MIN_VALUE;
            for (Section section : onKey) {
                if (section.enteredAt() < latestExit) {
                    overlaps++;
                }
                latestExit = Math.max(latestExit, section.exitedAt());
            }
        }
        return overlaps;
    }

    /**
     * Sections whose fencing token is not larger than that of the section on the same key entered before it
     * (in a run without overlaps, every later holder must have a larger token).
     */
    int fencesNotIncreasing() {
        int stale = 0;
        for (List<Section> onKey : byKey().values()) {
            long previous = Long.MIN_VALUE;
            for (Section section : onKey) {
                if (section.fence() <= previous) {
                    stale++;
                }
                previous = Math.max(previous, section.fence());
            }
        }
        return stale;
    }

    /**
     * Sections that followed a section of the same application on the same key with the very next fencing
     * token: the lock went from one thread of the application to the next without a new token from Redis.
     */
    int passedWithinAnApplication() {
        int passed = 0;
        for (List<Section> onKey : byKey().values()) {
            for (int i = 1; i < onKey.size(); i++) {
                Section before = onKey.get(i - 1);
                Section section = onKey.get(i);
                if (section.application() == before.application() && section.fence() == before.fence() + 1) {
                    passed++;
                }
            }
        }
        return passed;
    }

    /**
     * The longest time any key lay free while somebody was asking for it: for each section entered within
     * {@code [from, until]}, from the later of (the previous holder's exit, the earliest ask still pending
     * when the section entered) to its entry, less the time this JVM was stalled within it ({@code stalled}: nanos
     * within an interval, as a {@code StallMeter} measures), when no thread here could have taken the key. A key
     * nobody asks for is not counted as idle.
     */
    Duration longestIdleWhileAsked(long from, long until, LongBinaryOperator stalled) {
        long longest = 0;
        for (List<Section> onKey : byKey().values()) {
            String key = onKey.get(0).key();
            long previousExit = Long.MIN_VALUE;
            for (Section section : onKey) {
                long entered = section.enteredAt();
                if (previousExit != Long.MIN_VALUE && previousExit >= from && entered <= until
                        && entered > previousExit) {
                    long idleFrom = Math.max(previousExit, earliestPendingAsk(key, entered));
                    longest = Math.max(longest, entered - idleFrom - stalled.applyAsLong(idleFrom, entered));
                }
                previousExit = Math.max(previousExit, section.exitedAt());
            }
        }
        return Duration.ofNanos(longest);
    }

    /** Sections per application. */
    Map<Integer, Integer> sectionsPerApplication() {
        Map<Integer, Integer> counts = new TreeMap<>();
        for (Section section : this.sections) {
            counts.merge(section.application(), 1, Integer::sum);
        }
        return counts;
    }

    /** The earliest ask for the key that was made by {@code at} and had not got in (or given up) before it. */
    private long earliestPendingAsk(String key, long at) {
        long earliest = at;
        for (Section section : this.sections) {
            if (section.key().equals(key) && section.askedAt() <= at && section.enteredAt() >= at) {
                earliest = Math.min(earliest, section.askedAt());
            }
        }
        for (Failure failure : this.failures) {
            if (failure.key().equals(key) && failure.askedAt() <= at && failure.endedAt() >= at) {
                earliest = Math.min(earliest, failure.askedAt());
            }
        }
        return earliest;
    }

    private Map<String, List<Section>> byKey() {
        Map<String, List<Section>> byKey = new TreeMap<>();
        for (Section section : this.sections) {
            byKey.computeIfAbsent(section.key(), (k) -> new ArrayList<>()).add(section);
        }
        byKey.values().forEach((onKey) -> onKey.sort(Comparator.comparingLong(Section::enteredAt)));
        return byKey;
    }
}
