package io.github.redislock;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.redislock.support.LockHammerProcess;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three JVM processes, each its own Spring application with its own Redis connection, increment one racy
 * counter under the lock. Judged by the final count and a witness counter in Redis that records any moment
 * two critical sections were inside at once.
 */
class SeparateProcessesMutualExclusionTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    private static final int PROCESSES = 3;

    private static final int THREADS = 4;

    private static final int INCREMENTS = 15;

    @Test
    void separateJvmsNeverOverlapAndLoseNoUpdates() throws Exception {
        List<Process> processes = new ArrayList<>();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        for (int i = 0; i < PROCESSES; i++) {
            processes.add(new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                    LockHammerProcess.class.getName(), redis.url(), Integer.toString(THREADS),
                    Integer.toString(INCREMENTS)).inheritIO().start());
        }
        for (Process process : processes) {
            assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("process finished").isTrue();
            assertThat(process.exitValue()).as("process exit code").isZero();
        }
        assertThat(redis.command("GET", "process-counter"))
                .isEqualTo(Integer.toString(PROCESSES * THREADS * INCREMENTS));
        assertThat(redis.command("GET", "witness:overlaps")).isNull();
        assertThat(redis.command("GET", "witness:inside")).isEqualTo("0");
    }
}
