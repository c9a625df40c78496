package io.github.redislock.benchmarks.hotkey;

/**
 * How long the hot key's holders really spent in their sections during one run's window. A 1 ms section parks
 * until 1 ms has passed and wakes up late (timer slack, scheduling), so it lasts longer than 1 ms, and the limit
 * a lock could reach is one over the section's real mean, not 1,000 a second. With an exclusive key the sections
 * never overlap, so their time inside the window is the time the key was doing work, and the rest of the window
 * is hand-over: from one holder's section returning (release included) to the next holder's section starting.
 *
 * @param nanos sum of the durations of the sections counted as acquisitions (those entered within the window)
 * @param nanosInWindow sum over every section of the part of it that lay within the window: exact at both edges
 */
record SectionTimes(long nanos, long nanosInWindow) {

    /** The mean real duration of a section, in milliseconds; NaN without acquisitions. */
    double meanMillis(long acquisitions) {
        return (acquisitions > 0) ? this.nanos / 1e6 / acquisitions : Double.NaN;
    }

    /**
     * Sections' time over the window, in percent: for an exclusive key how busy the key was (at most 100), for a
     * shared one a hundred times the mean number of holders.
     */
    double busyPercent(long windowNanos) {
        return this.nanosInWindow * 100.0 / windowNanos;
    }

    /**
     * For an exclusive key, the window's time outside every section per acquisition, in microseconds: the mean time
     * from one holder leaving its section to the next one entering; NaN without acquisitions.
     */
    double handOverMicros(long windowNanos, long acquisitions) {
        return (acquisitions > 0) ? (windowNanos - this.nanosInWindow) / 1e3 / acquisitions : Double.NaN;
    }
}
