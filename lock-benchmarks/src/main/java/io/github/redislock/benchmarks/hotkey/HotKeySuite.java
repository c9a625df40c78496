package io.github.redislock.benchmarks.hotkey;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.github.redislock.benchmarks.Figure;
import io.github.redislock.benchmarks.Implementations;
import io.github.redislock.benchmarks.RunMode;

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The hot-key comparison: each implementation, with an empty and with a 1 ms critical section, through
 * {@link HotKeyHarness}. Waiting is where the implementations differ most: ours and Redisson are woken by a
 * message their release publishes (each with its own retry safety net), Spring Integration waits on pub/sub
 * in PUB_SUB mode and polls every 100 ms in SPIN mode.
 */
public final class HotKeySuite {

    private static final List<Contender> CONTENDERS = List.of(
            new Contender(Implementations.OURS_TEMPLATE, OursContendedLock::new),
            new Contender(Implementations.REDISSON, RedissonContendedLock::new),
            new Contender(Implementations.SI_SPIN, (url) -> new IntegrationContendedLock(url, RedisLockType.SPIN_LOCK)),
            new Contender(Implementations.SI_PUBSUB,
                    (url) -> new IntegrationContendedLock(url, RedisLockType.PUB_SUB_LOCK)));

    private final HotKeyHarness harness;

    private final PrintStream progress;

    public HotKeySuite(RunMode mode, PrintStream progress) {
        this.harness = new HotKeyHarness(mode.hotKeyWarmup(), mode.hotKeyMeasurement());
        this.progress = progress;
    }

    public static String section(CriticalSection section) {
        return "hot key: " + HotKeyHarness.CLIENTS + " clients x " + HotKeyHarness.THREADS_PER_CLIENT + " threads, "
                + section.label();
    }

    public static long countSelected(Predicate<String> selected) {
        return CONTENDERS.stream().filter((c) -> selected.test(c.implementation())).count()
                * CriticalSection.values().length;
    }

    public List<Figure> run(Predicate<String> selected) throws InterruptedException {
        List<Figure> figures = new ArrayList<>();
        for (CriticalSection section : CriticalSection.values()) {
            List<Figure> sectionFigures = new ArrayList<>();
            for (Contender contender : CONTENDERS) {
                if (!selected.test(contender.implementation())) {
                    continue;
                }
                HotKeyResult result = this.harness.run(contender, section);
                sectionFigures.addAll(result.figures(section(section), contender.implementation()));
                this.progress.printf(Locale.ROOT, "  hot key %-13s %-18s %s%n", section.label(),
                        contender.implementation(), result.summary());
            }
            figures.addAll(Figure.groupedByMetric(sectionFigures));
        }
        return figures;
    }
}
