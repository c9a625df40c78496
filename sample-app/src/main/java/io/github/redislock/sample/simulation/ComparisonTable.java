package io.github.redislock.sample.simulation;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** The two runs side by side, one row per figure. */
final class ComparisonTable {

    private static final String ROW = "  %-34s %16s %16s%n";

    private final RunResult locked;

    private final RunResult unlocked;

    ComparisonTable(RunResult locked, RunResult unlocked) {
        this.locked = locked;
        this.unlocked = unlocked;
    }

    void print(PrintStream out) {
        String rule = "  " + "-".repeat(68);
        out.printf(ROW, "", "WITH LOCK", "WITHOUT LOCK");
        out.println(rule);
        row(out, "items on sale", (r) -> r.finalState().stocked());
        row(out, "items sold (orders in Redis)", (r) -> r.finalState().orders());
        row(out, "OVERSOLD", (r) -> r.finalState().oversold());
        row(out, "stock left in Redis", (r) -> r.finalState().stock());
        row(out, "sold via instance 1 / 2 / ...", ComparisonTable::soldPerInstance);
        out.println(rule);
        row(out, "buyers (HTTP requests)", (r) -> r.crowd().buyers());
        row(out, "  201 bought", (r) -> r.crowd().count(201));
        row(out, "  409 busy (lock wait timed out)", (r) -> r.crowd().count(409));
        row(out, "  410 sold out", (r) -> r.crowd().count(410));
        row(out, "  other / no response", (r) -> r.crowd().unexpected());
        out.println(rule);
        row(out, "wall time", (r) -> String.format(Locale.ROOT, "%.2f s", r.crowd().wallTime().toNanos() / 1e9));
        row(out, "throughput", (r) -> String.format(Locale.ROOT, "%.0f req/s", r.crowd().throughput()));
        row(out, "latency p50", (r) -> millis(r.crowd().latencyPercentile(50)));
        row(out, "latency p99", (r) -> millis(r.crowd().latencyPercentile(99)));
        row(out, "latency max", (r) -> millis(r.crowd().latencyPercentile(100)));
        out.println(rule);
    }

    private void row(PrintStream out, String label, Function<RunResult, Object> value) {
        out.printf(ROW, label, value.apply(this.locked), value.apply(this.unlocked));
    }

    private static String soldPerInstance(RunResult run) {
        List<String> counts = new ArrayList<>();
        IntStream.range(0, run.instances().size()).forEach((i) -> counts.add(Integer.toString(run.crowd().soldVia(i))));
        return counts.stream().collect(Collectors.joining(" / "));
    }

    private static String millis(Duration duration) {
        return String.format(Locale.ROOT, "%.1f ms", duration.toNanos() / 1e6);
    }
}
