package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures how long this JVM could not run a thread that asked to run: a daemon thread parks for a millisecond at a
 * time and records each wake-up that came later than {@link #NOTICED} after it was due (the machine's scheduler
 * gave the cores to others, or a garbage collection stopped every thread). A test whose bound is about the library
 * (how long a key may lie free while someone waits) subtracts the stalls measured inside the interval it judges,
 * instead of assuming a machine that always runs its threads at once.
 * <p>
 * States: created → {@link #start started} (measuring) → {@link #close closed} (measuring no more; what was measured
 * stays readable). Thread-safe; the measuring thread is the only writer.
 */
public final class StallMeter implements AutoCloseable {

    /** How late a wake-up must be to count as a stall; shorter delays are ordinary scheduling. */
    public static final Duration NOTICED = Duration.ofMillis(5);

    private static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);

    /** A stall: nothing here ran from {@code from} to {@code until} (System.nanoTime()). */
    private record Stall(long from, long until) {
    }

    private final ConcurrentLinkedQueue<Stall> stalls = new ConcurrentLinkedQueue<>();

    private final Thread thread = new Thread(this::measure, "stall-meter");

    private volatile boolean running = true;

    /** Wake-ups measured so far: each one's stall, if any, is recorded before this counts it. */
    private volatile long ticks;

    private StallMeter() {
        this.thread.setDaemon(true);
    }

    /** A meter measuring from now until {@link #close}. */
    public static StallMeter start() {
        StallMeter meter = new StallMeter();
        meter.thread.start();
        return meter;
    }

    private void measure() {
        long noticed = NOTICED.toNanos();
        while (this.running) {
            long due = System.nanoTime() + TICK;
            LockSupport.parkNanos(TICK);
            long woke = System.nanoTime();
            if (woke - due > noticed) {
                this.stalls.add(new Stall(due, woke));
            }
            this.ticks++;
        }
    }

    /** How long, within {@code from}..{@code until} (System.nanoTime()), this JVM's threads were stalled. */
    public Duration stalledWithin(long from, long until) {
        long total = 0;
        for (Stall stall : this.stalls) {
            long overlap = Math.min(until, stall.until()) - Math.max(from, stall.from());
            if (overlap > 0) {
                total += overlap;
            }
        }
        return Duration.ofNanos(total);
    }

    /** The longest single stall measured so far. */
    public Duration longest() {
        return Duration.ofNanos(this.stalls.stream().mapToLong((stall) -> stall.until() - stall.from()).max().orElse(0));
    }

    /** Wake-ups measured so far (only the measuring thread writes it). */
    long ticks() {
        return this.ticks;
    }

    @Override
    public void close() {
        this.running = false;
        LockSupport.unpark(this.thread);
    }
}
