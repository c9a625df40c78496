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

import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * The hot-key comparison: each implementation, with an empty critical section and 2 or 16 threads per client,
 * and with a 1 ms critical section and 2 threads per client, through {@link HotKeyHarness}. Waiting is where the implementations differ most: ours and Redisson are woken by a
 * message their release publishes (each with its own retry safety net), Spring Integration waits on pub/sub
 * in PUB_SUB mode and polls every 100 ms in SPIN mode. On ZooKeeper (a section of its own per scenario), ours,
 * Curator's {@code InterProcessMutex} and Spring Integration's {@code ZookeeperLockRegistry} all wait the same way:
 * a node per waiting thread and a watch on the node before it.
 */
public final class HotKeySuite {

    private static final List<Contender> CONTENDERS = List.of(
            new Contender(Implementations.OURS_TEMPLATE,
                    (url) -> new OursContendedLock(SpringContexts.withLock(url), ContendedLock.LEASE)),
            new Contender(Implementations.OURS_TEMPLATE_RENEWED,
                    (url) -> new OursContendedLock(SpringContexts.withLock(url), null)),
            new Contender(Implementations.OURS_TEMPLATE_REJOIN,
                    (url) -> new OursContendedLock(
                            SpringContexts.withLock(url, "redis-lock.local-handover-rejoin=true"), ContendedLock.LEASE)),
            new Contender(Implementations.REDISSON, RedissonContendedLock::new),
            new Contender(Implementations.SI_SPIN, (url) -> new IntegrationContendedLock(url, RedisLockType.SPIN_LOCK)),
            new Contender(Implementations.SI_PUBSUB,
                    (url) -> new IntegrationContendedLock(url, RedisLockType.PUB_SUB_LOCK)),
            new Contender(Implementations.OURS_ZOOKEEPER, Store.ZOOKEEPER,
                    (connect) -> new OursContendedLock(SpringContexts.withZooKeeperLock(connect), null)),
            new Contender(Implementations.CURATOR_MUTEX, Store.ZOOKEEPER, CuratorContendedLock::mutex),
            new Contender(Implementations.SI_ZOOKEEPER, Store.ZOOKEEPER, IntegrationZooKeeperContendedLock::new));

    /** A critical section and how many threads each of the clients runs. */
    private record Scenario(CriticalSection section, int threadsPerClient) {

        String label(Store store) {
            return "hot key" + ((store == Store.ZOOKEEPER) ? " on ZooKeeper: " : ": ") + HotKeyHarness.CLIENTS + " clients x " + this.threadsPerClient + " threads, "
                    + this.section.label();
        }
    }

    private static final List<Scenario> SCENARIOS = List.of(new Scenario(CriticalSection.EMPTY, 2),
            new Scenario(CriticalSection.EMPTY, 16), new Scenario(CriticalSection.ONE_MILLISECOND, 2));

    private final HotKeyHarness harness;

    private final PrintStream progress;

    public HotKeySuite(RunMode mode, PrintStream progress) {
        this.harness = new HotKeyHarness(mode.hotKeyWarmup(), mode.hotKeyMeasurement());
        this.progress = progress;
    }

    public static long countSelected(Predicate<String> selected) {
        return CONTENDERS.stream().filter((c) -> selected.test(c.implementation())).count()
                * SCENARIOS.size();
    }

    public List<Figure> run(Predicate<String> selected) throws InterruptedException {
        List<Figure> figures = new ArrayList<>();
        for (Store store : Store.values()) {
            for (Scenario scenario : SCENARIOS) {
                figures.addAll(run(selected, store, scenario));
            }
        }
        return figures;
    }

    /** One section of the table: the selected contenders on one store in one scenario. */
    private List<Figure> run(Predicate<String> selected, Store store, Scenario scenario) throws InterruptedException {
        List<Figure> sectionFigures = new ArrayList<>();
        for (Contender contender : CONTENDERS) {
            if (contender.store() != store || !selected.test(contender.implementation())) {
                continue;
            }
            HotKeyResult result = this.harness.run(contender, scenario.section(), scenario.threadsPerClient());
            sectionFigures.addAll(result.figures(scenario.label(store), contender.implementation(), true));
            this.progress.printf(Locale.ROOT, "  hot key %-13s x%-2d %-22s %s%n", scenario.section().label(),
                    scenario.threadsPerClient(), contender.implementation(), result.summary(true));
        }
        return Figure.groupedByMetric(sectionFigures);
    }
}
