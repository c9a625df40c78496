package io.github.redislock.torture;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The host's network tools ({@code ip}, {@code nft}) as the suite's labs run them: to their end, or an exception that
 * quotes the command and what it said. Found on {@code PATH}, {@code /usr/sbin} or {@code /sbin}.
 */
final class HostCommands {

    private HostCommands() {
    }

    static String run(String... command) {
        return execute(List.of(command), null);
    }

    static void runQuietly(String... command) {
        try {
            run(command);
        }
        catch (IllegalStateException ex) {
            // Already gone.
        }
    }

    /** Loads an nft script, on the host or inside a network namespace. */
    static void nft(@Nullable String namespace, String script) {
        List<String> command = new ArrayList<>();
        if (namespace != null) {
            command.addAll(List.of("ip", "netns", "exec", namespace));
        }
        command.addAll(List.of("nft", "-f", "-"));
        execute(command, script);
    }

    /**
     * Removes the network namespaces and links whose names match (group 1: the PID of the run that made them) and
     * whose run is gone: what a killed run left.
     */
    static void removeStaleNamespacesAndLinks(java.util.regex.Pattern names) {
        for (String line : run("ip", "netns", "list").lines().toList()) {
            java.util.regex.Matcher matcher = names.matcher(line);
            if (matcher.find() && isDead(matcher.group(1))) {
                runQuietly("ip", "netns", "del", line.split(" ")[0]);
            }
        }
        for (String line : run("ip", "-o", "link", "show").lines().toList()) {
            String[] fields = line.split(":\\s*|@");
            java.util.regex.Matcher matcher = (fields.length > 1) ? names.matcher(fields[1]) : null;
            if (matcher != null && matcher.find() && isDead(matcher.group(1))) {
                runQuietly("ip", "link", "del", fields[1]);
            }
        }
    }

    /** Whether the process that named something is gone (its leftovers are then stale). */
    static boolean isDead(String pid) {
        return ProcessHandle.of(Long.parseLong(pid)).isEmpty();
    }

    /** Runs a tool to its end; its output, or an exception that quotes the command and what it said. */
    static String execute(List<String> command, @Nullable String input) {
        List<String> resolved = new ArrayList<>(command);
        String tool = executable(command.get(0));
        resolved.set(0, (tool != null) ? tool : command.get(0));
        try {
            Process process = new ProcessBuilder(resolved).redirectErrorStream(true).start();
            try (var stdin = process.getOutputStream()) {
                if (input != null) {
                    stdin.write(input.getBytes(StandardCharsets.UTF_8));
                }
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output.trim());
            }
            return output;
        }
        catch (IOException ex) {
            throw new IllegalStateException(String.join(" ", command) + " could not run: " + ex.getMessage(), ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted running " + command.get(0), ex);
        }
    }

    static @Nullable String executable(String tool) {
        List<String> directories = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        directories.addAll(List.of("/usr/sbin", "/sbin"));
        for (String directory : directories) {
            if (!directory.isEmpty()) {
                Path candidate = Path.of(directory, tool);
                if (Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        return null;
    }
}
