package io.github.redislock.torture;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The suite catches what it claims to: the frozen-worker scenario passes on the library and fails, with the same
 * options, when the workers' release deletes without comparing ({@link Sabotage#RELEASE_WITHOUT_COMPARE}).
 * The frozen worker, thawed after its lease ran out, releases the lock of whoever holds it by then, and the next
 * holder enters beside that one. Two checks see it: an overlap nobody was told about (the clobbered holder's own
 * release "succeeds" too), and a refused write from a worker no fault hit (the clobbered holder, once the
 * newcomer has read with a larger token). Which of them fires depends on whether a renewal tick falls inside the
 * clobbered section; the scenario fails either way, and for no other reason.
 */
class SabotagedReleaseTest {

    /** Longer sections keep every resource occupied nearly all the time, as on any busy key. */
    private static final String[] OPTIONS = { "--scenarios=worker-pause", "--client=lettuce", "--work-millis=40" };

    @Test
    void aReleaseThatDoesNotCompareFailsTheFrozenWorkerScenarioThatPassesWithoutIt() {
        ScenarioResult control = run(OPTIONS);
        assertThat(control.failures()).isEmpty();

        String[] sabotaged = List.of(List.of(OPTIONS), List.of("--sabotage=release-without-compare")).stream()
            .flatMap(List::stream)
            .toArray(String[]::new);
        ScenarioResult broken = run(sabotaged);
        assertThat(broken.passed()).isFalse();
        assertThat(broken.failures()).allSatisfy((failure) -> assertThat(failure)
            .containsAnyOf("that no worker was told about", "which no fault hit, were rejected"));
        long unfaultedRejections = broken.rejected().keySet().stream().filter((worker) -> !worker.equals("w1")).count();
        assertThat(broken.untoldOverlaps() + unfaultedRejections).isPositive();
    }

    private static ScenarioResult run(String... options) {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        List<ScenarioResult> results = new Torture(TortureOptions.parse(options),
                new PrintStream(report, true, StandardCharsets.UTF_8)).run();
        System.out.println(report.toString(StandardCharsets.UTF_8));
        assertThat(results).hasSize(1);
        return results.get(0);
    }
}
