package io.github.redislock.torture;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The suite catches what it claims to: the same frozen-worker scenario that passes on the library
 * ({@link ShortProfileTest}) fails when the workers' release deletes without comparing
 * ({@link Sabotage#RELEASE_WITHOUT_COMPARE}). The frozen worker, thawed after its lease ran out, releases the
 * lock of whoever holds it by then; the next holder enters beside that one, and nobody is told.
 */
class SabotagedReleaseTest {

    @Test
    void aReleaseThatDoesNotCompareFailsTheFrozenWorkerScenario() {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        List<ScenarioResult> results = new Torture(
                TortureOptions.parse("--scenarios=worker-pause", "--sabotage=release-without-compare"),
                new PrintStream(report, true, StandardCharsets.UTF_8)).run();
        System.out.println(report.toString(StandardCharsets.UTF_8));

        ScenarioResult paused = results.get(0);
        assertThat(paused.passed()).isFalse();
        assertThat(paused.untoldOverlaps()).as("overlaps nobody was told about").isPositive();
        assertThat(paused.failures()).anySatisfy((failure) -> assertThat(failure).contains("no worker was told"));
        assertThat(report.toString(StandardCharsets.UTF_8)).contains("SABOTAGED on purpose: release-without-compare");
    }
}
