package io.github.redislock.testsupport;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Finds a {@code redis-server} executable: the one on {@code PATH} when there is one (Debian's package,
 * say), otherwise the binary that the {@code com.github.codemonstur:embedded-redis} artifact ships on the
 * classpath, copied once per JVM to a temporary file. The environment variable or system property
 * {@code REDIS_SERVER_BINARY} overrides both.
 */
public final class RedisBinary {

    private static final String OVERRIDE = "REDIS_SERVER_BINARY";

    private static volatile Path resolved;

    private static volatile Path bundled;

    private RedisBinary() {
    }

    /** The executable to start, found once per JVM. */
    public static Path find() {
        Path path = resolved;
        if (path == null) {
            synchronized (RedisBinary.class) {
                path = resolved;
                if (path == null) {
                    path = lookup();
                    resolved = path;
                }
            }
        }
        return path;
    }

    /** Where {@link #find()} found the binary, for log lines. */
    public static String describe() {
        return describe(find());
    }

    private static Path lookup() {
        String override = System.getProperty(OVERRIDE, System.getenv(OVERRIDE));
        if (override != null && !override.isBlank()) {
            Path path = Path.of(override);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(OVERRIDE + " points at " + path + ", which is not an executable file");
            }
            return path;
        }
        Path onPath = searchPath();
        return (onPath != null) ? onPath : bundled();
    }

    private static Path searchPath() {
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return null;
        }
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, "redis-server");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /**
     * The bundled binary, extracted once per JVM even when one is on {@code PATH}: for the fallback's own tests, and
     * for a process that cannot run the binary {@link #find()} gives (a {@code redis-server} linked with the
     * system's jemalloc cannot start under libfaketime, say).
     */
    public static Path bundled() {
        Path path = bundled;
        if (path == null) {
            synchronized (RedisBinary.class) {
                path = bundled;
                if (path == null) {
                    path = extractBundled();
                    bundled = path;
                }
            }
        }
        return path;
    }

    /** Where a binary comes from, for log lines: its path, and whether it is the bundled fallback. */
    public static String describe(Path path) {
        return path + (path.getFileName().toString().startsWith("redis-lock-bundled-") ? " (bundled fallback)" : "");
    }

    private static Path extractBundled() {
        String resource = bundledResourceName();
        ClassLoader loader = RedisBinary.class.getClassLoader();
        try (InputStream in = loader.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("No redis-server on PATH and no bundled binary '" + resource
                        + "' on the classpath: install Redis (apt-get install redis-server) or add "
                        + "com.github.codemonstur:embedded-redis");
            }
            Path file = Files.createTempFile("redis-lock-bundled-", "-redis-server");
            file.toFile().deleteOnExit();
            // Copy first: replacing the file would drop permissions set at creation.
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
            return file;
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not extract the bundled redis-server " + resource, ex);
        }
    }

    private static String bundledResourceName() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        boolean arm = arch.contains("aarch64") || arch.contains("arm");
        if (os.contains("mac")) {
            return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
        }
        if (os.contains("linux")) {
            if (arm) {
                return "redis-server-6.2.7-linux-arm64";
            }
            return arch.contains("64") ? "redis-server-6.2.6-v5-linux-amd64" : "redis-server-6.2.7-linux-386";
        }
        throw new IllegalStateException("No bundled redis-server for " + os + "/" + arch + ": put redis-server on PATH");
    }
}
