package io.github.redislock.storekit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures how long this JVM's threads went unscheduled while a check ran: a daemon thread asks to wake every
 * 5 ms and records by how much it woke late at the worst. A check with a time bound adds it to the bound, so a
 * loaded machine (a stalled core, a long GC) widens the bound by what it actually cost, and an idle one holds
 * the store to the documented figure.
 */
public final class Pauses implements AutoCloseable {

    private static final long STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final AtomicLong longestNanos = new AtomicLong();

    private final Thread meter;

    private volatile boolean running = true;

    private Pauses() {
        this.meter = new Thread(this::run, "store-kit-pauses");
        this.meter.setDaemon(true);
        this.meter.start();
    }

    /** Starts measuring now. */
    public static Pauses measure() {
        return new Pauses();
    }

    private void run() {
        while (this.running) {
            long before = System.nanoTime();
            LockSupport.parkNanos(STEP_NANOS);
            long late = System.nanoTime() - before - STEP_NANOS;
            this.longestNanos.accumulateAndGet(late, Math::max);
        }
    }

    /** The longest time the meter woke late since it started. */
    public Duration longest() {
        return Duration.ofNanos(this.longestNanos.get());
    }

    @Override
    public void close() {
        this.running = false;
        LockSupport.unpark(this.meter);
    }
}
