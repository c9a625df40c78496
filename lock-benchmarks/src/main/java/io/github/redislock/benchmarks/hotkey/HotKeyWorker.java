package io.github.redislock.benchmarks.hotkey;

import org.HdrHistogram.Histogram;

/**
 * One thread of the hot-key run: acquire, run the section, release, again, until the measurement window
 * closes. It records, for every acquisition that got in during the window, how long the acquire call took
 * (call to first instruction under the lock) and how long its section really lasted (first instruction under
 * the lock to the section's return: a parked section overshoots its nominal length); and, for every section,
 * how much of it lay inside the window, so that the sections' time within the window is exact at both edges.
 * Each worker owns its histogram and counters, so recording costs no coordination; the harness merges them
 * after the threads are joined.
 */
final class HotKeyWorker implements Runnable {

    /** Up to a minute, three significant digits. */
    private static final long HIGHEST_TRACKABLE_NANOS = 60_000_000_000L;

    private final ContendedLock lock;

    private final CriticalSection section;

    private final long startAt;

    private final long measureFrom;

    private final long measureTo;

    private final Histogram waits = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);

    private final Runnable timedSection = this::enterSection;

    private long enteredAt;

    private long exitedAt;

    /** Sum of the durations of the sections counted as acquisitions (entered in the window). */
    private long sectionNanos;

    /** Sum over every section of the part of it inside the window. */
    private long sectionNanosInWindow;

    private long timeouts;

    private Throwable failure;

    HotKeyWorker(ContendedLock lock, CriticalSection section, long startAt, long measureFrom, long measureTo) {
        this.lock = lock;
        this.section = section;
        this.startAt = startAt;
        this.measureFrom = measureFrom;
        this.measureTo = measureTo;
    }

    @Override
    public void run() {
        try {
            waitUntil(this.startAt);
            while (true) {
                long begin = System.nanoTime();
                if (begin >= this.measureTo) {
                    return;
                }
                boolean acquired = this.lock.runLocked(this.timedSection);
                long end = System.nanoTime();
                if (!acquired) {
                    if (end >= this.measureFrom && end < this.measureTo) {
                        this.timeouts++;
                    }
                }
                else {
                    recordSection(begin);
                }
            }
        }
        catch (Throwable ex) {
            this.failure = ex;
        }
    }

    private void enterSection() {
        this.enteredAt = System.nanoTime();
        this.section.run();
        this.exitedAt = System.nanoTime();
    }

    private void recordSection(long begin) {
        if (this.enteredAt >= this.measureFrom && this.enteredAt < this.measureTo) {
            this.waits.recordValue(Math.min(this.enteredAt - begin, HIGHEST_TRACKABLE_NANOS));
            this.sectionNanos += this.exitedAt - this.enteredAt;
        }
        long inWindow = Math.min(this.exitedAt, this.measureTo) - Math.max(this.enteredAt, this.measureFrom);
        if (inWindow > 0) {
            this.sectionNanosInWindow += inWindow;
        }
    }

    Histogram waits() {
        return this.waits;
    }

    long sectionNanos() {
        return this.sectionNanos;
    }

    long sectionNanosInWindow() {
        return this.sectionNanosInWindow;
    }

    long timeouts() {
        return this.timeouts;
    }

    Throwable failure() {
        return this.failure;
    }

    private static void waitUntil(long nanoTime) throws InterruptedException {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }
}
