package io.github.redislock.torture;

import java.util.Locale;
import java.util.SplittableRandom;

import org.jspecify.annotations.Nullable;

/**
 * What the workers' sections lock. Every workload takes its keys in each of the ways of {@link SectionKind}; only
 * what a key admits differs:
 * <ul>
 * <li>{@link #EXCLUSIVE}: plain locks, one holder per key (every scenario but the shared ones);</li>
 * <li>{@link #SEMAPHORE}: every key a semaphore, at most {@value #PERMITS} holders at once on each resource and
 * {@value #SLOW_PERMITS} on the long sections' resource, which one thread of each of the (three) workers takes in
 * turn, so that a permit there is always awaited;</li>
 * <li>{@link #READ_WRITE}: read and write locks on every key, {@value #READERS_IN_FOUR} sections in four reading;
 * readers share a key, a writer is alone on it;</li>
 * <li>{@link #LEADER}: no lock of the workers' own; every worker is a candidate in one leader election
 * ({@code redis-lock.leader.name}), and the leader runs {@code @LeaderOnly} sections ({@link SectionKind#LEADER}) back
 * to back on one resource, fenced with its term, while it leads. Besides the sections, each worker records its terms
 * ({@link TermRecord}): when it learned that it leads, and until when it was told so.</li>
 * </ul>
 * The witness judges a shared section by its key's bound ({@code enter.lua}); the fencing store judges a
 * writer as it judges an exclusive section, refuses a reader's read below the highest writer's token, and is not
 * called by a permit, which protects no value of its own.
 */
enum Workload {

    EXCLUSIVE, SEMAPHORE, READ_WRITE, LEADER;

    /** The election the workers of {@link #LEADER} stand in. */
    static final String ELECTION = "torture";

    /** The permits of the semaphore on each resource {@code r<i>}. */
    static final int PERMITS = 3;

    /** The permits of the semaphore on the long sections' resource: fewer than the workers, so that they queue. */
    static final int SLOW_PERMITS = 2;

    /** Of every four sections of the read/write workload, how many read. */
    static final int READERS_IN_FOUR = 3;

    /** The name in the workers' properties: {@code read-write}. */
    String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Workload of(String id) {
        for (Workload workload : values()) {
            if (workload.id().equals(id)) {
                return workload;
            }
        }
        throw new IllegalArgumentException("Unknown workload '" + id + "'");
    }

    /** What a section of this workload takes on its resources; null for a plain lock. */
    @Nullable Share pick(SectionKind kind, SplittableRandom random) {
        return switch (this) {
            case EXCLUSIVE, LEADER -> null;
            case SEMAPHORE -> Share.permit((kind == SectionKind.LONG) ? SLOW_PERMITS : PERMITS);
            case READ_WRITE -> (random.nextInt(4) < READERS_IN_FOUR) ? Share.READ : Share.WRITE;
        };
    }

    /** How a scenario's description begins: empty for the exclusive workload. */
    String label() {
        return switch (this) {
            case EXCLUSIVE -> "";
            case SEMAPHORE -> "semaphores of " + PERMITS + " (" + SLOW_PERMITS + " on the long sections' resource); ";
            case READ_WRITE -> "read/write locks, " + READERS_IN_FOUR + " sections in 4 reading; ";
            case LEADER -> "leader election, the leader writing with its term; ";
        };
    }
}
