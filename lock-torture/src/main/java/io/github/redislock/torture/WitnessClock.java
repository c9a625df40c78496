package io.github.redislock.torture;

/**
 * The witness's clock as a worker JVM carries it on its own monotonic clock ({@link System#nanoTime()}), for the
 * times a worker records: a step of the worker's wall clock does not move it (the clock-jump scenarios), and a
 * worker whose clock runs fast or slow (the clock-drift scenario, where libfaketime scales its monotonic clock
 * too) still records witness time.
 * <p>
 * An anchor pairs the witness's {@code TIME} with {@code nanoTime()} when the reply arrived, from the quickest of
 * three round trips: the witness read its clock at some moment of that round trip, so an anchored time is behind
 * the witness's by at most that round trip (about 0.1 ms here), never ahead. {@link #anchor} is called once at start
 * and then every {@link #INTERVAL_MILLIS} ms by the worker; {@link #nowMicros()} carries the latest anchor on at the
 * rate measured between the first and the latest anchor (witness microseconds per local microsecond), once they are
 * at least {@link #MIN_BASELINE_NANOS} apart, and at rate 1 before. Between anchors the error is the rate's, a few
 * parts per million of the time since the latest anchor (a frozen worker's anchors stop: its first time after the
 * thaw carries the freeze at the measured rate).
 * <p>
 * States: UNANCHORED --first anchor--> ANCHORED(rate 1) --an anchor 5 s after the first--> ANCHORED(measured rate),
 * re-measured at each later anchor.
 */
final class WitnessClock {

    /** How often the worker anchors again. */
    static final long INTERVAL_MILLIS = 250;

    /** The shortest baseline a rate is measured over: shorter, two anchors' round trips would weigh too much. */
    static final long MIN_BASELINE_NANOS = 5_000_000_000L;

    private volatile Anchor first;

    private volatile Anchor latest;

    private volatile double rate = 1.0;

    /** Anchors again over the witness connection (the caller's; this only reads {@code TIME} over it). */
    synchronized void anchor(Witness witness) {
        Anchor quickest = null;
        long quickestTrip = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long sent = System.nanoTime();
            long micros = witness.timeMicros();
            long received = System.nanoTime();
            if (received - sent < quickestTrip) {
                quickestTrip = received - sent;
                quickest = new Anchor(micros, received);
            }
        }
        if (this.first == null) {
            this.first = quickest;
        }
        else if (quickest.nanos - this.first.nanos >= MIN_BASELINE_NANOS) {
            this.rate = (quickest.micros - this.first.micros) * 1000.0 / (quickest.nanos - this.first.nanos);
        }
        this.latest = quickest;
    }

    /** The witness's time now, in microseconds, as carried on from the latest anchor. */
    long nowMicros() {
        Anchor anchor = this.latest;
        if (anchor == null) {
            throw new IllegalStateException("Not anchored to the witness yet");
        }
        return anchor.micros + Math.round((System.nanoTime() - anchor.nanos) / 1000.0 * this.rate);
    }

    /** Witness microseconds per local microsecond, as measured (1 until a baseline is long enough). */
    double rate() {
        return this.rate;
    }

    private record Anchor(long micros, long nanos) {
    }
}
