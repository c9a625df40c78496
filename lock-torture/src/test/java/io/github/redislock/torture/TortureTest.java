package io.github.redislock.torture;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** A run of several scenarios, judged and reported, whatever one of them does; the scenarios here are stand-ins. */
class TortureTest {

    @Test
    void aScenarioThatCannotStartFailsAndTheRunGoesOnToItsTable() {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        TortureOptions options = TortureOptions.parse("--scenarios=redis-restart,worker-kill", "--client=lettuce");
        Torture.Runner runner = (scenario, client) -> {
            if (scenario == Scenario.REDIS_RESTART) {
                throw new IllegalStateException("redis-server on port 6390 not ready after PT30S: libfaketime: "
                        + "Unexpected recursive calls\nand a second line");
            }
            return passed(scenario, client);
        };

        List<ScenarioResult> results = new Torture(options, new PrintStream(report, true, StandardCharsets.UTF_8), runner)
            .run();

        assertThat(results).extracting(ScenarioResult::scenario).containsExactly(Scenario.REDIS_RESTART,
                Scenario.WORKER_KILL);
        assertThat(results.get(0).failures()).singleElement().asString()
            .startsWith("did not run to its verdict: IllegalStateException: redis-server on port 6390 not ready after "
                    + "PT30S: libfaketime: Unexpected recursive calls (stack trace in ");
        assertThat(results.get(1).passed()).isTrue();
        assertThat(report.toString(StandardCharsets.UTF_8))
            .contains("| redis-restart | lettuce | – | – | – | – | – | – | – | – | – | **FAIL** (did not run) |")
            .contains("| worker-kill | lettuce | 40 |")
            .contains("Worker logs kept in ");
    }

    private static ScenarioResult passed(Scenario scenario, String client) {
        return new ScenarioResult(scenario, client, "one Redis", Fault.none(0), 40, 40, 0, 0, 0, Map.of("w1", 40), Map.of(),
                0, 0, 0, 0L, 0, Map.of(), Map.of(), List.of(), Duration.ofSeconds(1), ScenarioResult.Measures.NONE, null, null);
    }
}
