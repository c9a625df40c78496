package io.github.redislock.torture;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The short profile as the build runs it: three worker JVMs of eight threads (plus one for long sections) on the
 * current library, a healthy run and a worker frozen inside its sections for longer than the lease, on plain locks
 * and then on read/write locks. Judged by the suite's own verdict, and by the figures that make the verdict mean
 * something: sections ran, the frozen worker's lease really ran out while others took its resources (overlaps, all
 * told; on read/write locks only a writer beside its sections overlaps, which the moment of the freeze may not
 * bring), and the fencing store turned away only the frozen worker.
 */
class ShortProfileTest {

    @Test
    void healthyRunAndFrozenWorkerPassOnTheCurrentLibrary() {
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        List<ScenarioResult> results = new Torture(TortureOptions.parse("--profile=short"),
                new PrintStream(report, true, StandardCharsets.UTF_8)).run();
        System.out.println(report.toString(StandardCharsets.UTF_8));

        assertThat(results).extracting(ScenarioResult::scenario)
            .containsExactly(Scenario.HEALTHY, Scenario.WORKER_PAUSE, Scenario.READ_WRITE_WORKER_PAUSE);
        assertThat(results).allSatisfy((result) -> assertThat(result.failures()).as(result.scenario().id()).isEmpty());

        ScenarioResult healthy = results.get(0);
        assertThat(healthy.sections()).isGreaterThan(500);
        assertThat(healthy.overlaps()).isZero();
        assertThat(healthy.rejectedTotal()).isZero();
        assertThat(healthy.acceptedTotal()).isEqualTo(healthy.sections());

        ScenarioResult paused = results.get(1);
        assertThat(paused.fault().faulted()).containsExactly("w1");
        assertThat(paused.overlaps()).as("sections that ran while the frozen worker was still inside").isPositive();
        assertThat(paused.untoldOverlaps()).isZero();
        assertThat(paused.rejected().keySet()).isSubsetOf("w1");
        assertThat(paused.lossSignals()).isNotEmpty();

        ScenarioResult shared = results.get(2);
        assertThat(shared.sections()).isGreaterThan(500);
        assertThat(shared.fault().faulted()).containsExactly("w1");
        assertThat(shared.untoldOverlaps()).isZero();
        assertThat(shared.rejected().keySet()).isSubsetOf("w1");
        assertThat(shared.lossSignals()).as("the frozen worker's read or write locks, lost").isNotEmpty();
    }
}
