package io.github.redislock.torture;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The report: one Markdown table row per scenario, then for the leader election scenarios a row each of how their
 * terms were judged ({@link TermVerdict}), then what each fault did and why a scenario failed.
 */
final class ResultTable {

    private ResultTable() {
    }

    static String render(List<ScenarioResult> results) {
        List<String> lines = new ArrayList<>();
        lines.add("| scenario | client | sections | overlaps (untold, told late) | fenced writes accepted / rejected | lost updates "
                + "| stale tokens | recovery | longest idle while others waited | exceptions | loss signals "
                + "| verdict |");
        lines.add("|---|---|---:|---:|---|---:|---:|---:|---:|---|---|---|");
        for (ScenarioResult result : results) {
            if (result.notRun() != null) {
                lines.add("| " + result.scenario().id() + " | " + result.client()
                        + " | – | – | – | – | – | – | – | – | – | " + (result.skipped() ? "skipped" : "**FAIL** (did not run)")
                        + " |");
                continue;
            }
            lines.add("| " + String.join(" | ", result.scenario().id(), result.client(),
                    Integer.toString(result.sections()),
                    result.overlaps() + " (" + result.untoldOverlaps() + ", " + result.lateOverlaps() + ")",
                    result.acceptedTotal() + " / " + result.rejectedTotal() + perWorker(result.rejected()),
                    Integer.toString(result.lostUpdates()), Integer.toString(result.staleTokens()),
                    recovery(result), millis(result.longestIdleMicros()), counts(result.exceptions()),
                    counts(result.lossSignals()), result.failed() ? "**FAIL**" : "pass") + " |");
        }
        lines.add("");
        List<ScenarioResult> elections = results.stream().filter((r) -> r.terms() != null).toList();
        if (!elections.isEmpty()) {
            lines.add("| scenario | client | terms | ended by | two told leaders (untold, told late) | terms increasing |");
            lines.add("|---|---|---:|---|---:|---|");
            for (ScenarioResult result : elections) {
                TermVerdict terms = result.terms();
                lines.add("| " + String.join(" | ", result.scenario().id(), result.client(),
                        Integer.toString(terms.terms()), reasons(terms.reasons()),
                        terms.twoLeaders() + " (" + terms.untold() + ", " + terms.late() + ")",
                        terms.decreasing().isEmpty() ? "yes" : "no: " + String.join(", ", terms.decreasing())) + " |");
            }
            lines.add("");
        }
        for (ScenarioResult result : results) {
            if (result.notRun() != null) {
                lines.add("- " + result.scenario().id() + " on " + result.client() + ": "
                        + (result.skipped() ? "SKIPPED, " : "DID NOT RUN, ") + result.notRun());
                continue;
            }
            lines.add("- " + result.scenario().id() + " on " + result.client() + " (" + result.topology() + ", "
                    + result.wallTime().toSeconds() + " s): " + result.fault().description() + "; "
                    + measures(result)
                    + (result.failed() ? "; FAILED: " + String.join("; ", result.failures()) : ""));
        }
        return String.join(System.lineSeparator(), lines);
    }

    private static String measures(ScenarioResult result) {
        ScenarioResult.Measures measures = result.measures();
        String text = (result.fault().isNone() ? "" : "during the fault ")
                + Math.round(measures.sectionsPerSecond()) + " sections/s, waits median "
                + millis(measures.waitMedianMicros()) + ", p99 " + millis(measures.waitP99Micros());
        if (measures.longestFailedCallMicros() > 0) {
            text += "; longest failed lock call " + millis(measures.longestFailedCallMicros());
        }
        if (measures.rejoinMicros() != null) {
            text += "; " + String.join(", ", new java.util.TreeSet<>(result.fault().faulted())) + " entered again "
                    + millis(measures.rejoinMicros()) + " after it";
        }
        return text;
    }

    /** How the terms ended, by reason; {@code -} is a term still led when its worker stopped. */
    private static String reasons(Map<String, Integer> reasons) {
        return reasons.entrySet().stream()
            .map((e) -> (e.getKey().equals("-") ? "still leading" : e.getKey()) + " " + e.getValue())
            .collect(Collectors.joining(", "));
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
