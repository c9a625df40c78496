package io.github.redislock.testsupport;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A JVM frozen from outside (SIGSTOP, as a loaded machine or a long collection would stop it) measures the freeze:
 * the meter runs in a child JVM ({@link Child}), which reports what it measured when asked on its standard input.
 */
@LineIndependent
class StallMeterTest {

    private static final Duration FREEZE = Duration.ofMillis(400);

    @Test
    void aFrozenJvmMeasuresItsFreeze() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Child.class.getName())
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8)); PrintWriter in = new PrintWriter(child.getOutputStream(), true,
                        StandardCharsets.UTF_8)) {
            assertThat(out.readLine()).isEqualTo("measuring");
            long frozen = ProcessSignals.frozenWhile(child, () -> {
                long from = System.nanoTime();
                // The freeze's length is the fault itself, not a wait for something to happen.
                sleep(FREEZE);
                return System.nanoTime() - from;
            });
            in.println("report");
            String[] report = out.readLine().split(" ");
            long longest = Long.parseLong(report[0]);
            long within = Long.parseLong(report[1]);
            // The child stopped at most a tick after the signal and woke at most when it was continued: the stall
            // it saw is the freeze less the meter's tick and the notice threshold, at least.
            assertThat(Duration.ofNanos(longest)).as("longest stall measured")
                .isGreaterThanOrEqualTo(Duration.ofNanos(frozen).minus(StallMeter.NOTICED).minusMillis(2));
            assertThat(within).as("stalls measured within the child's whole run").isGreaterThanOrEqualTo(longest);
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        finally {
            child.destroyForcibly();
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** The child JVM: measures, says so, and on a line of input prints its longest stall and all of its run's. */
    public static final class Child {

        public static void main(String[] args) throws Exception {
            try (StallMeter meter = StallMeter.start()) {
                System.out.println("measuring");
                System.out.flush();
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                // Thawed and asked: the meter's thread may not have run since. Two wake-ups from now, the one that
                // ended the freeze has been measured.
                long asked = meter.ticks();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (meter.ticks() < asked + 2 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
                Duration all = meter.stalledWithin(Long.MIN_VALUE, Long.MAX_VALUE);
                System.out.println(meter.longest().toNanos() + " " + all.toNanos());
                System.out.flush();
            }
        }
    }
}
