package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Measures how long this JVM got no answer from one Redis server: a daemon thread of its own, on a connection of its
 * own, sends {@code PING} every millisecond and records each stretch between two replies that came more than
 * {@link #NOTICED} later than due. Such a silence is a stall of this JVM (its threads could not run), of the server
 * (it could not answer), or of both; what {@link StallMeter} sees of this JVM alone, it sees of the pair a client
 * needs. A test of a lease that renewal keeps judges a loss against it: renewal every third of the lease keeps a lock
 * as long as neither side stands still for a renewal period (a round then starts at most a period after the last
 * and is answered within a period), so a lock lost without a silence that long is the library's fault, and one lost
 * with it is a loss by design, which the library must tell.
 * <p>
 * States: created → {@link #start started} (measuring) → {@link #close closed} (measuring no more; what was measured
 * stays readable; when the server stopped answering for good, the silence counts from its last answer on).
 * Thread-safe; the measuring thread is the only writer.
 */
public final class SilenceMeter implements AutoCloseable {

    /** How late a reply must be to count as a silence; shorter delays are ordinary scheduling. */
    public static final Duration NOTICED = Duration.ofMillis(5);

    private static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);

    /** Long enough that a stalled server shows as a silence, not as a broken connection. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    /** No reply came from {@code from} to {@code until} (System.nanoTime()). */
    private record Silence(long from, long until) {
    }

    private final ConcurrentLinkedQueue<Silence> silences = new ConcurrentLinkedQueue<>();

    private final RespConnection connection;

    private final Thread thread = new Thread(this::measure, "silence-meter");

    private volatile boolean running = true;

    private SilenceMeter(RespConnection connection) {
        this.connection = connection;
        this.thread.setDaemon(true);
    }

    /** A meter measuring the server's answers from now until {@link #close}. */
    public static SilenceMeter start(RedisServer server) {
        SilenceMeter meter = new SilenceMeter(RespConnection.open(server.host(), server.port(), READ_TIMEOUT));
        meter.thread.start();
        return meter;
    }

    private void measure() {
        long noticed = TICK + NOTICED.toNanos();
        long last = System.nanoTime();
        try {
            while (this.running) {
                LockSupport.parkNanos(TICK);
                this.connection.command("PING");
                long answered = System.nanoTime();
                if (answered - last > noticed) {
                    this.silences.add(new Silence(last, answered));
                }
                last = answered;
            }
        }
        catch (RuntimeException ex) {
            // The server is gone (or the meter closed under a command): silent from the last answer on.
            this.silences.add(new Silence(last, Long.MAX_VALUE));
        }
    }

    /** The longest silence, or the longest part of one, within {@code from}..{@code until} (System.nanoTime()). */
    public Duration longestWithin(long from, long until) {
        long longest = 0;
        for (Silence silence : this.silences) {
            longest = Math.max(longest, Math.min(until, silence.until()) - Math.max(from, silence.from()));
        }
        return Duration.ofNanos(longest);
    }

    @Override
    public void close() {
        this.running = false;
        try {
            this.thread.join(READ_TIMEOUT.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        finally {
            this.connection.close();
        }
    }
}
