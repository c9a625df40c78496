package io.github.redislock.torture;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The report: a Markdown row per scenario, then a line per fault with the reasons a scenario failed. */
class ResultTableTest {

    private static final long T = 1_700_000_000_000_000L;

    private static final ScenarioResult PASSED = new ScenarioResult(Scenario.HEALTHY, "lettuce", "one Redis", Fault.none(T),
            1250, 1200, 0, 0, 0, Map.of("w1", 400, "w2", 400, "w3", 400), Map.of(), 0, 0, 0, 0L, 4_000, Map.of(),
            Map.of(), List.of(), Duration.ofSeconds(62), new ScenarioResult.Measures(20.4, 3_000, 41_000, 0, null), null, null);

    private static final ScenarioResult FAILED = new ScenarioResult(Scenario.WORKER_PAUSE, "jedis", "one Redis",
            new Fault(T, T + 4_500_000, Set.of("w1"), "w1 frozen for 4500 ms inside [r0]"), 950, 900, 3, 1, 1,
            Map.of("w2", 500, "w3", 390), Map.of("w1", 3), 0, 3, 0, 1_200_000L, 12_000_000,
            Map.of("LockLostException", 2L), Map.of("renewal", 1L),
            List.of("1 overlap(s) that no worker was told about", "w2 did not stop within 60 s"),
            Duration.ofSeconds(31), new ScenarioResult.Measures(7, 1_000, 3_000_000, 2_010_000, 1_500_000L), null,
            null);

    @Test
    void rendersRowPerScenarioAndWhyTheFailingOneFailed() {
        List<String> lines = List.of(ResultTable.render(List.of(PASSED, FAILED)).split(System.lineSeparator(), -1));

        assertThat(lines).hasSize(7);
        assertThat(lines.get(0)).startsWith("| scenario | client | sections | overlaps (untold, told late) |").endsWith("| verdict |");
        assertThat(lines.get(1)).isEqualTo("|---|---|---:|---:|---|---:|---:|---:|---:|---|---|---|");
        assertThat(lines.subList(2, 7)).containsExactly(
                "| healthy | lettuce | 1200 | 0 (0, 0) | 1200 / 0 | 0 | 0 | – | 4 ms | – | – | pass |",
                "| worker-pause | jedis | 900 | 3 (1, 1) | 890 / 3 (w1: 3) | 0 | 3 | 1200 ms | 12 s | LockLostException 2 "
                        + "| renewal 1 | **FAIL** |",
                "",
                "- healthy on lettuce (one Redis, 62 s): none; 20 sections/s, waits median 3 ms, p99 41 ms",
                "- worker-pause on jedis (one Redis, 31 s): w1 frozen for 4500 ms inside [r0]; during the fault 7 "
                        + "sections/s, waits median 1 ms, p99 3000 ms; longest failed lock call 2010 ms; w1 entered again "
                        + "1500 ms after it; FAILED: 1 overlap(s) that no worker was told about; w2 did not stop within "
                        + "60 s");
    }

    @Test
    void rowsHaveAsManyCellsAsTheHeader() {
        List<String> lines = List.of(ResultTable.render(List.of(PASSED, FAILED)).split(System.lineSeparator()));

        long columns = cells(lines.get(0));
        assertThat(columns).isEqualTo(12);
        assertThat(lines.subList(1, 4)).allSatisfy((line) -> assertThat(cells(line)).isEqualTo(columns));
    }

    @Test
    void leaderElectionScenarioGetsARowOfItsTerms() {
        TermVerdict terms = new TermVerdict(4, new java.util.TreeMap<>(Map.of("-", 2, "LOST", 2)), 1, 0, 1, List.of());
        ScenarioResult election = new ScenarioResult(Scenario.ELECTION_REDIS_RESTART, "lettuce", "one Redis",
                new Fault(T, T + 80_000, Set.of("w1", "w2", "w3"), "Redis killed and restarted empty in 80 ms"), 900,
                900, 1, 0, 1, Map.of("w1", 899), Map.of("w1", 1), 0, 0, 0, 20_000L, 3_000, Map.of(), Map.of(),
                List.of(), Duration.ofSeconds(40), ScenarioResult.Measures.NONE, null, terms);

        assertThat(ResultTable.render(List.of(PASSED, election)).split(System.lineSeparator()))
            .containsSequence("| scenario | client | terms | ended by | two told leaders (untold, told late) | terms "
                    + "increasing |", "|---|---|---:|---|---:|---|",
                    "| election-redis-restart | lettuce | 4 | still leading 2, LOST 2 | 1 (0, 1) | yes |");
    }

    @Test
    void recoveryThatNeverCameSaysNever() {
        ScenarioResult stuck = new ScenarioResult(Scenario.REDIS_PAUSE, "lettuce", "one Redis",
                new Fault(T, T + 4_500_000, Set.of("w1", "w2"), "Redis frozen for 4500 ms"), 10, 5, 0, 0, 0, Map.of(),
                Map.of(), 0, 0, 0, null, 0, Map.of(), Map.of(),
                List.of("no progress on every resource within 3 leases after the fault"), Duration.ofSeconds(20),
                ScenarioResult.Measures.NONE, null, null);

        assertThat(ResultTable.render(List.of(stuck)))
            .contains("| redis-pause | lettuce | 5 | 0 (0, 0) | 0 / 0 | 0 | 0 | never | 0 ms | – | – | **FAIL** |");
    }

    @Test
    void skippedScenarioSaysWhyAndNeitherPassesNorFails() {
        ScenarioResult skipped = ScenarioResult.skipped(Scenario.WORKER_PARTITION, "jedis",
                "no 'nft' on PATH, /usr/sbin or /sbin (Debian: apt-get install iproute2 nftables)");

        assertThat(skipped.passed()).isFalse();
        assertThat(skipped.failed()).isFalse();
        assertThat(ResultTable.render(List.of(skipped)))
            .contains("| worker-partition | jedis | – | – | – | – | – | – | – | – | – | skipped |")
            .contains("- worker-partition on jedis: SKIPPED, no 'nft' on PATH");
    }

    @Test
    void scenarioThatDidNotRunFailsSayingWhy() {
        ScenarioResult failed = ScenarioResult.failedToRun(Scenario.REDIS_CLOCK_JUMP, "lettuce",
                "IllegalStateException: redis-server on port 6390 not ready after PT30S", Duration.ofSeconds(31));

        assertThat(failed.passed()).isFalse();
        assertThat(failed.failed()).isTrue();
        assertThat(ResultTable.render(List.of(failed)))
            .contains("| redis-clock-jump | lettuce | – | – | – | – | – | – | – | – | – | **FAIL** (did not run) |")
            .contains("- redis-clock-jump on lettuce: DID NOT RUN, IllegalStateException: redis-server on port 6390 "
                    + "not ready after PT30S");
    }

    private static long cells(String row) {
        return row.chars().filter((c) -> c == '|').count() - 1;
    }
}
