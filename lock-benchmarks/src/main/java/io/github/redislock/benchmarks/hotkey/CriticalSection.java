package io.github.redislock.benchmarks.hotkey;

import java.util.concurrent.locks.LockSupport;

/**
 * What a holder does while it holds the hot key. Empty measures the lock hand-over alone; one millisecond
 * stands for a short piece of I/O-bound work. It parks rather than spins: on two cores a spinning holder
 * would steal the CPU that Redis and the waiters need and measure the machine instead of the lock.
 */
public enum CriticalSection {

    EMPTY("empty section", 0),

    ONE_MILLISECOND("1 ms section", 1_000_000);

    private final String label;

    private final long nanos;

    CriticalSection(String label, long nanos) {
        this.label = label;
        this.nanos = nanos;
    }

    public String label() {
        return this.label;
    }

    /** Holds the lock for at least this section's duration. */
    public void run() {
        if (this.nanos == 0) {
            return;
        }
        long end = System.nanoTime() + this.nanos;
        for (long left = this.nanos; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }
}
