package io.github.redislock.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.RedisBinary;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Which redis-server runs on a fake clock: one that starts under libfaketime, the harness's own first, else the
 * bundled one; a binary that hangs or complains under the library is refused, saying so in one clause.
 */
class FakedRedisTest {

    @TempDir
    Path directory;

    @BeforeEach
    void needsLibfaketime() {
        assumeTrue(FakeClock.unavailable().isEmpty(), () -> "skipped: " + FakeClock.unavailable().orElseThrow());
    }

    @Test
    void theBundledRedisStartsUnderLibfaketime() {
        assertThat(FakedRedis.refusal(RedisBinary.bundled(), FakedRedis.PROBE_TIMEOUT)).isEmpty();
    }

    @Test
    void aBinaryThatHangsUnderLibfaketimeIsRefused() throws IOException {
        Path hangs = script("hangs", "echo 'libfaketime: Unexpected recursive calls to clock_gettime()' >&2",
                "exec sleep 60");

        assertThat(FakedRedis.refusal(hangs, Duration.ofSeconds(2))).hasValue(hangs
                + " does not start under libfaketime (hung for 2 s: \"libfaketime: Unexpected recursive calls to "
                + "clock_gettime()\")");
    }

    @Test
    void aBinaryThatFailsUnderLibfaketimeIsRefused() throws IOException {
        Path fails = script("fails", "echo 'no such option' >&2", "exit 3");

        assertThat(FakedRedis.refusal(fails, FakedRedis.PROBE_TIMEOUT))
            .hasValue(fails + " does not start under libfaketime (exit 3: \"no such option\")");
    }

    @Test
    void whenTheHarnessesRedisIsRefusedTheBundledOneRunsSayingWhy() throws IOException {
        Path hangs = script("hangs", "exec sleep 60");

        FakedRedis chosen = FakedRedis.choose(hangs, RedisBinary::bundled, Duration.ofSeconds(2));

        assertThat(chosen.chosen()).isEqualTo(RedisBinary.bundled());
        assertThat(chosen.reason()).isEqualTo("the Redis on a fake clock is " + RedisBinary.describe(RedisBinary.bundled())
                + ", since " + hangs + " does not start under libfaketime (hung for 2 s)");
    }

    @Test
    void whenNoRedisStartsUnderLibfaketimeTheReasonNamesEach() throws IOException {
        Path hangs = script("hangs", "exec sleep 60");
        Path fails = script("fails", "exit 1");

        FakedRedis chosen = FakedRedis.choose(hangs, () -> fails, Duration.ofSeconds(2));

        assertThat(chosen.chosen()).isNull();
        assertThat(chosen.reason()).isEqualTo(hangs + " does not start under libfaketime (hung for 2 s); " + fails
                + " does not start under libfaketime (exit 1)");
    }

    /**
     * Debian's redis-server (linked with the system's jemalloc) hangs under libfaketime 0.9.10 before its main: the
     * suite finds that before a scenario starts it, and runs the bundled Redis instead. Runs where such a binary is
     * the harness's (CI installs Debian's).
     */
    @Test
    void aRedisLinkedWithTheSystemsJemallocIsRefused() throws Exception {
        Path binary = RedisBinary.find();
        Process ldd = new ProcessBuilder("ldd", binary.toString()).redirectErrorStream(true).start();
        String libraries = new String(ldd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        ldd.waitFor();
        assumeTrue(libraries.contains("libjemalloc"), () -> "skipped: " + binary + " does not link libjemalloc");

        assertThat(FakedRedis.unavailable()).isEmpty();
        assertThat(FakedRedis.binary()).isEqualTo(RedisBinary.bundled());
        assertThat(FakedRedis.note()).hasValueSatisfying((note) -> assertThat(note)
            .startsWith("the Redis on a fake clock is " + RedisBinary.describe(RedisBinary.bundled()) + ", since " + binary
                    + " does not start under libfaketime (hung for 10 s: ")
            .contains("libfaketime: Unexpected recursive calls to clock_gettime() without proper initialization"));
    }

    private Path script(String name, String... lines) throws IOException {
        Path file = this.directory.resolve(name);
        Files.write(file, List.of(String.join("\n", "#!/bin/sh", String.join("\n", lines))));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
