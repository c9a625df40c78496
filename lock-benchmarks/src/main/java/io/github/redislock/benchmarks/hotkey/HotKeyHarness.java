package io.github.redislock.benchmarks.hotkey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.BenchZooKeeper;
import io.github.redislock.benchmarks.RedisLoad;
import org.HdrHistogram.Histogram;

/**
 * A plain timed harness for one hot key: 4 independent client instances x some threads fight over it for a
 * warm-up and then a measurement window. It is not JMH because what matters here is per-acquisition wait
 * percentiles across threads and Redis-side counters over one exact window, which a fixed wall-clock window
 * with per-thread histograms gives directly.
 */
final class HotKeyHarness {

    static final int CLIENTS = 4;

    /** Time for every client's threads to be started before the run begins. */
    private static final long START_DELAY_NANOS = Duration.ofMillis(200).toNanos();

    private final Duration warmup;

    private final Duration measurement;

    HotKeyHarness(Duration warmup, Duration measurement) {
        this.warmup = warmup;
        this.measurement = measurement;
    }

    HotKeyResult run(Contender contender, CriticalSection section, int threadsPerClient) throws InterruptedException {
        boolean redis = contender.store() == Contender.Store.REDIS;
        if (redis) {
            BenchRedis.flushAll();
        }
        String address = redis ? BenchRedis.url() : BenchZooKeeper.connectString();
        List<ContendedLock> clients = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                clients.add(contender.newInstance().apply(address));
            }
            return measure(contender, clients, section, threadsPerClient);
        }
        finally {
            for (ContendedLock client : clients) {
                client.close();
            }
        }
    }

    private HotKeyResult measure(Contender contender, List<ContendedLock> clients, CriticalSection section,
            int threadsPerClient) throws InterruptedException {
        long startAt = System.nanoTime() + START_DELAY_NANOS;
        long measureFrom = startAt + this.warmup.toNanos();
        long measureTo = measureFrom + this.measurement.toNanos();
        List<HotKeyWorker> workers = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            for (int t = 0; t < threadsPerClient; t++) {
                HotKeyWorker worker = new HotKeyWorker(clients.get(c), section, startAt, measureFrom, measureTo);
                Thread thread = new Thread(worker, "hot-" + contender.implementation() + "-" + c + "-" + t);
                workers.add(worker);
                threads.add(thread);
                thread.start();
            }
        }
        // The Redis figures only where Redis is the store measured.
        boolean redis = contender.store() == Contender.Store.REDIS;
        sleepUntil(measureFrom);
        RedisLoad before = redis ? BenchRedis.load() : null;
        sleepUntil(measureTo);
        RedisLoad during = redis ? BenchRedis.load().since(before) : null;
        for (Thread thread : threads) {
            // A thread still inside an acquire call when the window closes finishes it first.
            thread.join(ContendedLock.WAIT.toMillis() * 3);
            if (thread.isAlive()) {
                throw new IllegalStateException(thread.getName() + " did not finish after the window closed");
            }
        }
        Histogram waits = new Histogram(3);
        long[] perClient = new long[clients.size()];
        long timeouts = 0;
        long sectionNanos = 0;
        long sectionNanosInWindow = 0;
        for (int i = 0; i < workers.size(); i++) {
            HotKeyWorker worker = workers.get(i);
            if (worker.failure() != null) {
                throw new IllegalStateException(contender.implementation() + " failed", worker.failure());
            }
            waits.add(worker.waits());
            perClient[i / threadsPerClient] += worker.waits().getTotalCount();
            timeouts += worker.timeouts();
            sectionNanos += worker.sectionNanos();
            sectionNanosInWindow += worker.sectionNanosInWindow();
        }
        return new HotKeyResult(waits, perClient, timeouts, new SectionTimes(sectionNanos, sectionNanosInWindow),
                measureTo - measureFrom, during);
    }

    private static void sleepUntil(long nanoTime) throws InterruptedException {
        for (long left = nanoTime - System.nanoTime(); left > 0; left = nanoTime - System.nanoTime()) {
            Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
        }
    }
}
