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
 * <p>
 * It fails every time, by construction: the nemesis freezes the worker inside a long section, waits until another
 * worker's long section has taken that resource after the lease, and thaws it; the frozen section's stale release
 * returns while that section is inside with seconds of work left (the fault's description says so, in both
 * runs, or the arrangement did not happen). The sabotaged release takes that section's lock from it, so the next
 * section of the resource (the thawed worker's own long thread at the latest, which asks at once) enters beside it
 * with a larger fencing token and reads, and the store refuses the clobbered section's write: a refused write
 * from a worker no fault hit. The overlap may also be untold, or told only after it began.
 */
class SabotagedReleaseTest {

    /** Longer sections keep every resource occupied nearly all the time, as on any busy key. */
    private static final String[] OPTIONS = { "--scenarios=worker-pause", "--client=lettuce", "--work-millis=40" };

    private static final String ARRANGED = "its stale release of slow returned while ";

    @Test
    void aReleaseThatDoesNotCompareFailsTheFrozenWorkerScenarioThatPassesWithoutIt() {
        ScenarioResult control = run(OPTIONS);
        assertThat(control.fault().description()).contains(ARRANGED);
        assertThat(control.failures()).isEmpty();

        String[] sabotaged = List.of(List.of(OPTIONS), List.of("--sabotage=release-without-compare")).stream()
            .flatMap(List::stream)
            .toArray(String[]::new);
        ScenarioResult broken = run(sabotaged);
        assertThat(broken.fault().description()).contains(ARRANGED);
        assertThat(broken.failures()).anySatisfy((failure) -> assertThat(failure)
            .contains("which no fault hit, were rejected"));
        assertThat(broken.failures()).allSatisfy((failure) -> assertThat(failure).containsAnyOf(
                "that no worker was told about", "which no fault hit, were rejected", "told only after they began"));
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
