package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.redislock.testsupport.RedisBinary;
import org.jspecify.annotations.Nullable;

/**
 * Which {@code redis-server} the suite runs on a {@link FakeClock}, found once per JVM before any scenario needs it.
 * <p>
 * Not every binary can run under libfaketime. Debian's {@code redis-server} (7.0.15 in bookworm) allocates with the
 * system's {@code libjemalloc}, which replaces {@code malloc} for the whole process; jemalloc reads
 * {@code clock_gettime} while it sets itself up, libfaketime then sets itself up inside that call and looks up
 * symbols glibc no longer has ({@code __ftime}, {@code timer_settime}), and the dynamic linker allocates the error
 * of each failed look-up with jemalloc, which is still setting itself up: libfaketime 0.9.10 prints "Unexpected
 * recursive calls to clock_gettime() without proper initialization" and the process hangs before {@code main}
 * (libfaketime's issue 130, open; no {@code FAKETIME_*} variable avoids it, nor does {@code libfaketimeMT}). A Redis
 * built from source links its own jemalloc under a prefix and leaves {@code malloc} to glibc, and runs.
 * <p>
 * So each candidate is tried first: {@code redis-server --version} under the library with the run's variables must
 * print its version and exit within {@link #PROBE_TIMEOUT}. The binary the harness uses everywhere else
 * ({@link RedisBinary#find()}) is tried first, then the bundled one ({@link RedisBinary#bundled()}, a build from
 * source); the first that runs is the faked Redis, and {@link #note()} says when that is not the harness's own.
 * When none runs (or libfaketime itself is missing), {@link #unavailable()} says why, and the scenarios that fake
 * Redis's clock are skipped.
 */
final class FakedRedis {

    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

    private static volatile @Nullable FakedRedis found;

    private final @Nullable Path chosen;

    private final @Nullable String reason;

    /**
     * @param chosen the binary that runs under libfaketime, or null when none does
     * @param reason with a binary, why it is not the harness's own (null when it is); without, why none runs
     */
    private FakedRedis(@Nullable Path chosen, @Nullable String reason) {
        this.chosen = chosen;
        this.reason = reason;
    }

    /** Why no Redis can run on a fake clock here, in one sentence; empty when one can. */
    static Optional<String> unavailable() {
        FakedRedis redis = get();
        return (redis.chosen == null) ? Optional.ofNullable(redis.reason) : Optional.empty();
    }

    /** The binary to start on a fake clock; fails when {@link #unavailable()} is not empty. */
    static Path binary() {
        FakedRedis redis = get();
        if (redis.chosen == null) {
            throw new IllegalStateException("No redis-server runs under libfaketime: " + redis.reason);
        }
        return redis.chosen;
    }

    /** One sentence when the faked Redis is not the binary the harness uses elsewhere; empty when it is. */
    static Optional<String> note() {
        FakedRedis redis = get();
        return (redis.chosen != null) ? Optional.ofNullable(redis.reason) : Optional.empty();
    }

    @Nullable Path chosen() {
        return this.chosen;
    }

    @Nullable String reason() {
        return this.reason;
    }

    private static FakedRedis get() {
        FakedRedis redis = found;
        if (redis == null) {
            synchronized (FakedRedis.class) {
                redis = found;
                if (redis == null) {
                    redis = choose(RedisBinary.find(), RedisBinary::bundled, PROBE_TIMEOUT);
                    found = redis;
                }
            }
        }
        return redis;
    }

    /** The first of the two candidates that runs under libfaketime (the bundled one extracted only if needed). */
    static FakedRedis choose(Path preferred, Supplier<Path> fallback, Duration timeout) {
        Optional<String> library = FakeClock.unavailable();
        if (library.isPresent()) {
            return new FakedRedis(null, library.get());
        }
        Optional<String> refused = refusal(preferred, timeout);
        if (refused.isEmpty()) {
            return new FakedRedis(preferred, null);
        }
        Path other;
        try {
            other = fallback.get();
        }
        catch (RuntimeException ex) {
            return new FakedRedis(null, refused.get() + "; and no bundled redis-server: " + ex.getMessage());
        }
        if (other.equals(preferred)) {
            return new FakedRedis(null, refused.get());
        }
        Optional<String> alsoRefused = refusal(other, timeout);
        if (alsoRefused.isPresent()) {
            return new FakedRedis(null, refused.get() + "; " + alsoRefused.get());
        }
        return new FakedRedis(other, "the Redis on a fake clock is " + RedisBinary.describe(other) + ", since "
                + refused.get());
    }

    /** Why the binary cannot run under libfaketime, in one clause; empty when it starts and exits as it should. */
    static Optional<String> refusal(Path binary, Duration timeout) {
        Path output = null;
        try {
            output = Files.createTempFile("redis-lock-faked-redis-", ".out");
            ProcessBuilder builder = new ProcessBuilder(List.of(binary.toString(), "--version")).redirectErrorStream(true)
                .redirectOutput(output.toFile());
            builder.environment().putAll(probeEnvironment());
            Process process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return Optional.of(binary + " does not start under libfaketime (hung for " + timeout.toSeconds()
                        + " s" + firstLine(output, ": ") + ")");
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            if (process.exitValue() != 0 || !text.contains("Redis server v=") || text.contains("libfaketime:")) {
                return Optional.of(binary + " does not start under libfaketime (exit " + process.exitValue()
                        + firstLine(output, ": ") + ")");
            }
            return Optional.empty();
        }
        catch (IOException ex) {
            return Optional.of("could not run " + binary + " under libfaketime: " + ex.getMessage());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while trying " + binary + " under libfaketime");
        }
        finally {
            deleteQuietly(output);
        }
    }

    /** The variables of a {@link FakeClock}, with the offset given directly instead of by a file. */
    private static Map<String, String> probeEnvironment() {
        Map<String, String> environment = new HashMap<>(FakeClock.variables());
        environment.put("FAKETIME", "+0");
        return environment;
    }

    private static String firstLine(Path output, String prefix) {
        try {
            String line = Files.readString(output, StandardCharsets.UTF_8).strip().lines().findFirst().orElse("");
            return line.isEmpty() ? "" : prefix + "\"" + line + "\"";
        }
        catch (IOException | UncheckedIOException ex) {
            return "";
        }
    }

    private static void deleteQuietly(@Nullable Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            }
            catch (IOException ex) {
                // A leftover probe output in the temporary directory is harmless.
            }
        }
    }
}
