package io.github.redislock.benchmarks.hotkey;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.github.redislock.benchmarks.Figure;
import io.github.redislock.benchmarks.RedisLoad;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * What one hot-key run measured in its window, and its conversion to table figures.
 *
 * @param waits acquire-call durations (ns) of the acquisitions in the window, all threads together
 * @param acquisitionsPerClient acquisitions in the window by each client instance
 * @param timeouts acquire calls that gave up after the full wait
 * @param sections how long the sections really lasted
 * @param windowNanos length of the window
 * @param load Redis commands and CPU during the window; {@code null} for a run on another store
 */
record HotKeyResult(Histogram waits, long[] acquisitionsPerClient, long timeouts, SectionTimes sections, long windowNanos,
        @Nullable RedisLoad load) {

    long acquisitions() {
        return this.waits.getTotalCount();
    }

    double acquisitionsPerSecond() {
        return acquisitions() * 1e9 / this.windowNanos;
    }

    /** One progress line; with {@code exclusive} as in {@link #figures}. */
    String summary(boolean exclusive) {
        double busy = this.sections.busyPercent(this.windowNanos);
        String waits = String.format(Locale.ROOT, "%,8.0f acq/s  wait p50 %7.2f ms p99 %8.2f ms  section %6.3f ms",
                acquisitionsPerSecond(), millis(50), millis(99), this.sections.meanMillis(acquisitions()))
                + (exclusive ? String.format(Locale.ROOT, " busy %5.1f %%", busy)
                        : String.format(Locale.ROOT, " holders %4.2f", busy / 100));
        if (this.load == null) {
            return waits;
        }
        return waits + String.format(Locale.ROOT, "  %6.2f cmds  %7.2f us Redis CPU",
                this.load.commandsPer(acquisitions()), this.load.cpuMicrosPer(acquisitions()));
    }

    /**
     * The table figures of this run.
     * @param exclusive whether one holder at a time had the key: only then is the sections' time the key's busy time,
     * and the rest the hand-over between holders; a shared key gets the mean number of holders instead
     */
    List<Figure> figures(String section, String implementation, boolean exclusive) {
        long acquisitions = acquisitions();
        List<Figure> figures = new ArrayList<>();
        figures.add(new Figure(section, "acquisitions", "/s", implementation, acquisitionsPerSecond()));
        figures.add(new Figure(section, "acquire wait p50", "ms", implementation, millis(50)));
        figures.add(new Figure(section, "acquire wait p99", "ms", implementation, millis(99)));
        figures.add(new Figure(section, "acquire wait max", "ms", implementation,
                (acquisitions > 0) ? this.waits.getMaxValue() / 1e6 : Double.NaN));
        if (this.load != null) {
            figures.add(new Figure(section, "Redis commands", "per acquisition", implementation,
                    this.load.commandsPer(acquisitions)));
            figures.add(new Figure(section, "Redis CPU", "us/acquisition", implementation,
                    this.load.cpuMicrosPer(acquisitions)));
        }
        figures.add(new Figure(section, "section mean", "ms", implementation, this.sections.meanMillis(acquisitions)));
        if (exclusive) {
            figures.add(new Figure(section, "key busy", "%", implementation,
                    this.sections.busyPercent(this.windowNanos)));
            figures.add(new Figure(section, "hand-over gap", "us", implementation,
                    this.sections.handOverMicros(this.windowNanos, acquisitions)));
        }
        else {
            figures.add(new Figure(section, "holders at once", "mean", implementation,
                    this.sections.busyPercent(this.windowNanos) / 100));
        }
        figures.add(new Figure(section, "least-served client", "share of fair", implementation, leastServedShare()));
        figures.add(new Figure(section, "timeouts after 10 s", "count", implementation, this.timeouts));
        return figures;
    }

    /** The least-served client's acquisitions over an equal share: 1 is perfectly fair, 0 is starvation. */
    private double leastServedShare() {
        long total = acquisitions();
        if (total == 0) {
            return Double.NaN;
        }
        long least = Long.MAX_VALUE;
        for (long count : this.acquisitionsPerClient) {
            least = Math.min(least, count);
        }
        return least / ((double) total / this.acquisitionsPerClient.length);
    }

    private double millis(double percentile) {
        return (acquisitions() > 0) ? this.waits.getValueAtPercentile(percentile) / 1e6 : Double.NaN;
    }
}
