package io.github.redislock.benchmarks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * {@code stress-ng --cpu N} beside a benchmark run ({@code --stress-cpu=N}): the machine busy with other work, as a
 * production host often is, so that a lead that holds only on an idle machine shows. Started before the first
 * benchmark, stopped (and waited for) when the run ends, whatever ended it.
 */
final class StressNg implements AutoCloseable {

    private final Process process;

    private StressNg(Process process) {
        this.process = process;
    }

    /** Nothing to start when {@code cpus} is 0. */
    static AutoCloseable start(int cpus) throws IOException {
        if (cpus == 0) {
            return () -> {
            };
        }
        Process process;
        try {
            process = new ProcessBuilder("stress-ng", "--cpu", Integer.toString(cpus), "--quiet")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        }
        catch (IOException ex) {
            throw new IOException("--stress-cpu needs stress-ng on PATH (Debian and Ubuntu: apt-get install stress-ng): "
                    + ex.getMessage(), ex);
        }
        return new StressNg(process);
    }

    @Override
    public void close() throws InterruptedException {
        // SIGTERM: stress-ng stops its workers and exits; the run's figures are taken by then.
        this.process.destroy();
        if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
            this.process.destroyForcibly();
        }
    }
}
