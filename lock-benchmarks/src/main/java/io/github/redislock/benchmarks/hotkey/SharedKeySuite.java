package io.github.redislock.benchmarks.hotkey;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.github.redislock.benchmarks.Figure;
import io.github.redislock.benchmarks.Implementations;
import io.github.redislock.benchmarks.RunMode;
import io.github.redislock.benchmarks.clients.SpringContexts;
import io.github.redislock.benchmarks.hotkey.Contender.Store;

/**
 * The shared-key comparison, through {@link HotKeyHarness}: 4 client instances x 4 threads on one key with a 1 ms
 * section, as a semaphore of 4 (ours with {@code permits(4)}, Redisson's {@code RPermitExpirableSemaphore}, Curator's
 * {@code InterProcessSemaphoreV2}) and read-mostly, a write lock one call in ten (ours with {@code mode(READ)},
 * Redisson's {@code RReadWriteLock}, Curator's {@code InterProcessReadWriteLock}); on the benchmark Redis and on the
 * benchmark ZooKeeper, each store a section of its own. With 1 ms inside, a semaphore of 4 admits at most about
 * 4,000 acquisitions a second and a mutex about 1,000: the figures show how much of that sharing each one turns
 * into throughput, and what waiting costs.
 */
public final class SharedKeySuite {

    private static final int THREADS_PER_CLIENT = 4;

    private static final CriticalSection SECTION = CriticalSection.ONE_MILLISECOND;

    /** A shape and its contenders. */
    private record Run(SharedShape shape, List<Contender> contenders) {

        String label(Store store) {
            return this.shape.label() + ((store == Store.ZOOKEEPER) ? " on ZooKeeper: " : ": ") + HotKeyHarness.CLIENTS
                    + " clients x " + THREADS_PER_CLIENT + " threads, " + SECTION.label();
        }
    }

    private static final List<Run> RUNS = List.of(
            new Run(SharedShape.SEMAPHORE, List.of(
                    new Contender(Implementations.OURS_SHARED, (url) -> OursContendedLock.shared(SpringContexts.withLock(url),
                            SharedShape.SEMAPHORE, ContendedLock.LEASE)),
                    new Contender(Implementations.REDISSON_PERMIT_SEMAPHORE, RedissonPermitContendedLock::new),
                    new Contender(Implementations.OURS_ZOOKEEPER_SHARED, Store.ZOOKEEPER,
                            (connect) -> OursContendedLock.shared(SpringContexts.withZooKeeperLock(connect),
                                    SharedShape.SEMAPHORE, null)),
                    new Contender(Implementations.CURATOR_SEMAPHORE, Store.ZOOKEEPER,
                            CuratorSemaphoreContendedLock::new))),
            new Run(SharedShape.READ_MOSTLY, List.of(
                    new Contender(Implementations.OURS_SHARED, (url) -> OursContendedLock.shared(SpringContexts.withLock(url),
                            SharedShape.READ_MOSTLY, ContendedLock.LEASE)),
                    new Contender(Implementations.REDISSON_READ_WRITE, RedissonReadWriteContendedLock::new),
                    new Contender(Implementations.OURS_ZOOKEEPER_SHARED, Store.ZOOKEEPER,
                            (connect) -> OursContendedLock.shared(SpringContexts.withZooKeeperLock(connect),
                                    SharedShape.READ_MOSTLY, null)),
                    new Contender(Implementations.CURATOR_READ_WRITE, Store.ZOOKEEPER,
                            CuratorContendedLock::readMostly))));

    private final HotKeyHarness harness;

    private final PrintStream progress;

    public SharedKeySuite(RunMode mode, PrintStream progress) {
        this.harness = new HotKeyHarness(mode.hotKeyWarmup(), mode.hotKeyMeasurement());
        this.progress = progress;
    }

    public static long countSelected(Predicate<String> selected) {
        return RUNS.stream().flatMap((run) -> run.contenders().stream())
            .filter((contender) -> selected.test(contender.implementation()))
            .count();
    }

    public List<Figure> run(Predicate<String> selected) throws InterruptedException {
        List<Figure> figures = new ArrayList<>();
        for (Store store : Store.values()) {
            for (Run run : RUNS) {
                List<Figure> section = new ArrayList<>();
                for (Contender contender : run.contenders()) {
                    if (contender.store() != store || !selected.test(contender.implementation())) {
                        continue;
                    }
                    HotKeyResult result = this.harness.run(contender, SECTION, THREADS_PER_CLIENT);
                    section.addAll(result.figures(run.label(store), contender.implementation(), false));
                    this.progress.printf(Locale.ROOT, "  %-17s %-9s %-26s %s%n", run.shape().label(),
                            store.name().toLowerCase(Locale.ROOT), contender.implementation(), result.summary(false));
                }
                figures.addAll(Figure.groupedByMetric(section));
            }
        }
        return figures;
    }
}
