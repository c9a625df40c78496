package io.github.redislock.support;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An independent record of critical sections, kept outside the lock under test: every section logs when it
 * began and ended, and a counter of sections currently inside catches two at once as it happens. The lock
 * itself is never asked whether it worked.
 */
public final class OverlapLog {

    private final AtomicInteger inside = new AtomicInteger();

    private final AtomicInteger maxInside = new AtomicInteger();

    private final ConcurrentLinkedQueue<long[]> sections = new ConcurrentLinkedQueue<>();

    /** How many sections are inside right now. */
    public int inside() {
        return this.inside.get();
    }

    /** Call first thing inside the critical section; pass the result to {@link #exit}. */
    public long enter() {
        int now = this.inside.incrementAndGet();
        this.maxInside.accumulateAndGet(now, Math::max);
        return System.nanoTime();
    }

    /** Call last thing inside the critical section. */
    public void exit(long enteredAt) {
        long exitedAt = System.nanoTime();
        this.inside.decrementAndGet();
        this.sections.add(new long[] { enteredAt, exitedAt });
    }

    public int sections() {
        return this.sections.size();
    }

    /** The most sections ever inside at the same moment (1 means mutual exclusion held). */
    public int maxConcurrent() {
        return this.maxInside.get();
    }

    /** Pairs of logged sections whose time intervals overlap. */
    public int overlappingPairs() {
        List<long[]> sorted = new ArrayList<>(this.sections);
        sorted.sort(Comparator.comparingLong((long[] section) -> section[0]));
        int overlaps = 0;
        long latestEnd = Long.MIN_VALUE;
        for (long[] section : sorted) {
            if (latestEnd != Long.MIN_VALUE && section[0] < latestEnd) {
                overlaps++;
            }
            latestEnd = Math.max(latestEnd, section[1]);
        }
        return overlaps;
    }
}
