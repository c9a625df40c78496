package io.github.redislock.storekit;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.leader.Leadership;

/**
 * An independent record of who said it led, kept outside the library: a thread per watched {@link Leadership}
 * asks its {@code term()} every {@value #STEP_MILLIS} ms and logs the answer with the wall-clock time (in
 * microseconds) just before and just after the call; samples taken in other processes on the same machine are
 * added with {@link #record}. Nothing else is asked of the library.
 * <p>
 * The judge: a term's leader answered "leading" at some moment within each of its positive samples, and a term,
 * once over, never leads again; so it surely led from the end of its first positive sample to the start of its
 * last. Two terms whose sure spans overlap are two leaders at once (a breach), and terms must grow in the order
 * their spans begin. A sample delayed by a pause of its thread only widens its uncertainty, never makes a breach,
 * so a loaded machine cannot fail the judge; a store or candidate that lets two instances lead for longer than
 * the sampling step does.
 */
public final class LeaderWitness implements AutoCloseable {

    static final int STEP_MILLIS = 2;

    private final ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();

    private final List<Thread> samplers = new ArrayList<>();

    /** Starts sampling the leadership as {@code who}. */
    public synchronized void watch(String who, Leadership leadership) {
        Thread sampler = new Thread(() -> sample(leadership, (from, to, term) -> record(who, from, to, term)),
                "leader-witness-" + who);
        sampler.setDaemon(true);
        sampler.start();
        this.samplers.add(sampler);
    }

    /**
     * Asks the leadership's {@code term()} every {@value #STEP_MILLIS} ms until the thread is interrupted, and hands
     * each positive answer, with the times just before and after the call, to {@code positive}.
     */
    public static void sample(Leadership leadership, Positive positive) {
        while (!Thread.currentThread().isInterrupted()) {
            long from = now();
            OptionalLong term = leadership.term();
            long to = now();
            if (term.isPresent()) {
                positive.sampled(from, to, term.getAsLong());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STEP_MILLIS));
        }
    }

    /** Takes a positive sample: the leader answered {@code term} at some moment between {@code from} and {@code to}. */
    @FunctionalInterface
    public interface Positive {

        void sampled(long from, long to, long term);
    }

    /** The witness's clock: wall-clock microseconds, the same for every process on the machine. */
    public static long now() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /**
     * A positive sample: {@code who} answered that it led in {@code term} at some moment between {@code from} and
     * {@code to} ({@link #now()}'s clock).
     */
    public void record(String who, long from, long to, long term) {
        this.samples.add(new Sample(who, from, to, term));
    }

    /** How many positive samples were logged. */
    public int samples() {
        return this.samples.size();
    }

    /** The terms seen, in the order their spans began. */
    public List<Long> terms() {
        return spans().stream().map(Span::term).toList();
    }

    /** Who led in each term seen, in the order their spans began. */
    public List<String> leaders() {
        return spans().stream().map(Span::who).toList();
    }

    /**
     * Every breach: two terms whose sure spans overlap, or a term not larger than one whose span began before;
     * terms in {@code excused} (ended by a loss the store caused and the leader was told of) are not judged.
     */
    public List<String> breaches(Set<Long> excused) {
        List<Span> judged = spans().stream().filter((span) -> !excused.contains(span.term)).toList();
        List<String> breaches = new ArrayList<>();
        for (int i = 0; i < judged.size(); i++) {
            for (int j = i + 1; j < judged.size(); j++) {
                Span earlier = judged.get(i);
                Span later = judged.get(j);
                if (earlier.sure() && later.sure() && later.from < earlier.to) {
                    breaches.add(later + " began while " + earlier + " still led");
                }
                if (later.term <= earlier.term) {
                    breaches.add(later + " began after " + earlier + " with a term not larger");
                }
            }
        }
        return breaches;
    }

    /** Every breach, none excused. */
    public List<String> breaches() {
        return breaches(Set.of());
    }

    private List<Span> spans() {
        Map<String, Span> spans = new TreeMap<>();
        for (Sample sample : this.samples) {
            spans.merge(sample.who + "#" + sample.term, new Span(sample.who, sample.term, sample.to, sample.from),
                    (a, b) -> new Span(a.who, a.term, Math.min(a.from, b.from), Math.max(a.to, b.to)));
        }
        List<Span> ordered = new ArrayList<>(spans.values());
        ordered.sort(Comparator.comparingLong(Span::from));
        return ordered;
    }

    /** Stops the sampling threads. */
    @Override
    public synchronized void close() {
        for (Thread sampler : this.samplers) {
            sampler.interrupt();
        }
        for (Thread sampler : this.samplers) {
            try {
                sampler.join(TimeUnit.SECONDS.toMillis(10));
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private record Sample(String who, long from, long to, long term) {
    }

    /**
     * What the samples of one term prove: led surely from {@code from} (the earliest end of a positive sample) to
     * {@code to} (the latest start of one); empty ({@code from >= to}) when they prove no stretch.
     */
    private record Span(String who, long term, long from, long to) {

        boolean sure() {
            return this.from < this.to;
        }

        @Override
        public String toString() {
            return "the term " + this.term + " of " + this.who + " (surely leading " + this.from + "-" + this.to
                    + " µs)";
        }
    }
}
