package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The report: one Markdown table row per scenario, then what each fault did and why a scenario failed. */
final class ResultTable {

    private ResultTable() {
    }

    static String render(List<ScenarioResult> results) {
        List<String> lines = new ArrayList<>();
        lines.add("| scenario | client | sections | overlaps (untold) | fenced writes accepted / rejected | lost updates "
                + "| stale tokens | recovery | longest idle while others waited | exceptions | loss signals "
                + "| verdict |");
        lines.add("|---|---|---:|---:|---|---:|---:|---:|---:|---|---|---|");
        for (ScenarioResult result : results) {
            lines.add("| " + String.join(" | ", result.scenario().id(), result.client(),
                    Integer.toString(result.sections()),
                    result.overlaps() + " (" + result.untoldOverlaps() + ")",
                    result.acceptedTotal() + " / " + result.rejectedTotal() + perWorker(result.rejected()),
                    Integer.toString(result.lostUpdates()), Integer.toString(result.staleTokens()),
                    recovery(result), millis(result.longestIdleMicros()), counts(result.exceptions()),
                    counts(result.lossSignals()), result.passed() ? "pass" : "**FAIL**") + " |");
        }
        lines.add("");
        for (ScenarioResult result : results) {
            lines.add("- " + result.scenario().id() + " on " + result.client() + " (" + result.topology() + ", "
                    + result.wallTime().toSeconds() + " s): " + result.fault().description()
                    + (result.passed() ? "" : "; FAILED: " + String.join("; ", result.failures())));
        }
        return String.join(System.lineSeparator(), lines);
    }

    private static String perWorker(Map<String, Integer> rejected) {
        if (rejected.isEmpty()) {
            return "";
        }
        return " (" + rejected.entrySet().stream().map((e) -> e.getKey() + ": " + e.getValue())
            .collect(Collectors.joining(", ")) + ")";
    }

    private static String recovery(ScenarioResult result) {
        if (result.fault().isNone()) {
            return "–";
        }
        return (result.recoveryMicros() != null) ? millis(result.recoveryMicros()) : "never";
    }

    private static String millis(long micros) {
        return (micros >= 10_000_000) ? (micros / 1_000_000) + " s" : (micros / 1000) + " ms";
    }

    private static String counts(Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return "–";
        }
        return counts.entrySet().stream().map((e) -> e.getKey() + " " + e.getValue())
            .collect(Collectors.joining(", "));
    }
}
