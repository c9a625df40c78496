package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The wall clock of processes the suite starts, stepped while they run: each gets Debian's libfaketime by
 * {@code LD_PRELOAD}, reading its offset from a file of this run ({@code FAKETIME_TIMESTAMP_FILE}) once a second
 * ({@code FAKETIME_CACHE_DURATION=1}), so {@link #offset(Duration)} moves their clock within {@link #LAG}.
 * A JVM reads the clock very often: re-reading the file on every call ({@code FAKETIME_NO_CACHE=1}) slowed the
 * faked worker several times over, and libfaketime's shared memory (for its {@code faketime} wrapper, unused
 * here; {@code FAKETIME_DISABLE_SHM=1}) made each clock call four times as slow.
 * <p>
 * Only {@code CLOCK_REALTIME} moves ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}): a real clock step (NTP, an operator's
 * {@code date -s}, a VM's clock resynchronised) moves the wall clock, while the kernel never lets
 * {@code CLOCK_MONOTONIC} go back. On a JVM that is what {@link System#currentTimeMillis()} and
 * {@link java.time.Instant#now()} read; {@link System#nanoTime()} stays true. (Without that variable libfaketime 0.9.10
 * moves {@code CLOCK_MONOTONIC} with the offset, and a JVM's {@code nanoTime()} jumps with it, back as well: a
 * fault no kernel clock makes.)
 */
final class FakeClock implements AutoCloseable {

    private static final List<String> LIBRARIES = List.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
            "/usr/local/lib/faketime/libfaketime.so.1");

    /** How long after {@link #offset(Duration)} the processes surely read the new offset. */
    static final Duration LAG = Duration.ofMillis(1100);

    private static volatile @Nullable Optional<String> unavailable;

    private final Path file;

    private FakeClock(Path file) {
        this.file = file;
    }

    /**
     * Why this machine cannot fake a process's clock, in one sentence; empty when it can. Found once per JVM, by
     * running {@code date} under the library with the clock 1000 s ahead.
     */
    static Optional<String> unavailable() {
        Optional<String> reason = unavailable;
        if (reason == null) {
            reason = probe();
            unavailable = reason;
        }
        return reason;
    }

    private static Optional<String> probe() {
        String library = library();
        if (library == null) {
            return Optional.of("no libfaketime (Debian: apt-get install libfaketime)");
        }
        try {
            ProcessBuilder date = new ProcessBuilder("date", "+%s");
            date.environment().putAll(Map.of("LD_PRELOAD", library, "FAKETIME", "+1000"));
            Process process = date.redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            process.waitFor(10, TimeUnit.SECONDS);
            long ahead = Long.parseLong(output) - System.currentTimeMillis() / 1000;
            return (ahead >= 990 && ahead <= 1010) ? Optional.empty()
                    : Optional.of(library + " did not move date's clock (" + ahead + " s instead of 1000 s)");
        }
        catch (IOException | NumberFormatException ex) {
            return Optional.of("could not run date under " + library + ": " + ex.getMessage());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while trying libfaketime");
        }
    }

    /** A clock at the true time, its offset file in the directory. */
    static FakeClock create(Path directory) {
        try {
            FakeClock clock = new FakeClock(Files.createTempFile(directory, "faketime-", ".rc"));
            clock.offset(Duration.ZERO);
            return clock;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** The variables that put a process on this clock. */
    Map<String, String> environment() {
        Map<String, String> environment = new HashMap<>(variables());
        environment.put("FAKETIME_TIMESTAMP_FILE", this.file.toString());
        environment.put("FAKETIME_CACHE_DURATION", "1");
        return Map.copyOf(environment);
    }

    /**
     * The variables that make a process's clocks run at this rate from its start ({@code FAKETIME="+0 x<rate>"}),
     * its monotonic clock too, as a crystal that runs fast or slow drives both: on a JVM, {@link System#nanoTime()}
     * and its timed waits (a 500 ms sleep lasts 500 ms by its own clock, 526 ms at 0.95), not only the wall clock.
     */
    static Map<String, String> drifting(double rate) {
        String library = library();
        if (library == null) {
            throw new IllegalStateException("No libfaketime: " + unavailable().orElse(""));
        }
        return Map.of("LD_PRELOAD", library, "FAKETIME", "+0 x" + rate, "FAKETIME_DISABLE_SHM", "1");
    }

    /** The variables every faked process gets, whatever its offset and however it is given. */
    static Map<String, String> variables() {
        String library = library();
        if (library == null) {
            throw new IllegalStateException("No libfaketime: " + unavailable().orElse(""));
        }
        return Map.of("LD_PRELOAD", library, "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_DISABLE_SHM", "1");
    }

    /**
     * Sets the processes' wall clock this far ahead of the true time (rounded up to whole seconds), within
     * {@link #LAG}. The file is replaced by a rename, so that a process never reads it half written.
     */
    void offset(Duration offset) {
        long seconds = (offset.toMillis() + 999) / 1000;
        try {
            Path next = Files.createTempFile(this.file.getParent(), "faketime-", ".next");
            Files.writeString(next, ((seconds >= 0) ? "+" : "") + seconds + "\n");
            Files.move(next, this.file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(this.file);
        }
        catch (IOException ex) {
            // A leftover offset file is harmless.
        }
    }

    private static @Nullable String library() {
        return LIBRARIES.stream().filter((path) -> Files.isReadable(Path.of(path))).findFirst().orElse(null);
    }
}
