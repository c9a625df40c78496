package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Sends a signal to a child process by PID with {@code kill}, for the faults the JDK cannot cause:
 * {@code STOP}/{@code CONT} freeze and thaw a process (a long GC pause, a frozen VM). Use it only on processes
 * the caller started.
 */
public final class ProcessSignals {

    private ProcessSignals() {
    }

    /**
     * Freezes the process ({@code STOP}), returns what {@code meanwhile} returns, and thaws it ({@code CONT}) in
     * any case.
     * @param process the process, started by the caller
     */
    public static <T> T frozenWhile(Process process, Supplier<T> meanwhile) {
        send(process, "STOP");
        try {
            return meanwhile.get();
        }
        finally {
            send(process, "CONT");
        }
    }

    /**
     * @param process the process, started by the caller
     * @param signal the signal's name without {@code SIG}: {@code STOP}, {@code CONT}
     * @throws IllegalStateException if {@code kill} fails (the process is gone) or the thread is interrupted
     */
    public static void send(Process process, String signal) {
        long pid = process.pid();
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not run kill -" + signal + " " + pid, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending " + signal + " to " + pid, ex);
        }
    }
}
