package io.github.redislock.benchmarks;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Prints all figures as one table, each with its ratio to raw Lettuce and to every peer library measured in
 * the same section and metric. A single table is the point: whoever reads it should see at once what our
 * lock costs over the floor (raw Lettuce) and where it stands against what people would use instead.
 */
public final class ResultTable {

    /**
     * The column headings, in order, each with the implementations whose figure a row is divided by there: one per
     * section at most (a library's plain lock in the lock sections, its semaphore or read/write lock in the
     * shared-key sections).
     */
    private static final Map<String, Set<String>> PEERS = peers();

    private final List<Figure> figures = new ArrayList<>();

    public void add(Figure figure) {
        this.figures.add(figure);
    }

    public void addAll(List<Figure> more) {
        this.figures.addAll(more);
    }

    public boolean isEmpty() {
        return this.figures.isEmpty();
    }

    public void print(PrintStream out) {
        List<String[]> rows = new ArrayList<>();
        List<String> header = new ArrayList<>(List.of("section", "metric [unit]", "implementation", "value", "+-99.9%"));
        PEERS.keySet().forEach((heading) -> header.add("/" + heading));
        rows.add(header.toArray(String[]::new));
        String lastSection = null;
        String lastMetric = null;
        for (Figure figure : this.figures) {
            boolean newSection = !figure.section().equals(lastSection);
            boolean newMetric = newSection || !figure.metric().equals(lastMetric);
            List<String> row = new ArrayList<>();
            row.add(newSection ? figure.section() : "");
            row.add(newMetric ? figure.metric() + " [" + figure.unit() + "]" : "");
            row.add(figure.implementation());
            row.add(formatValue(figure.value()));
            row.add(Double.isNaN(figure.error()) ? "" : formatValue(figure.error()));
            for (Set<String> peer : PEERS.values()) {
                row.add(formatRatio(figure, peerFigure(figure, peer)));
            }
            rows.add(row.toArray(String[]::new));
            lastSection = figure.section();
            lastMetric = figure.metric();
        }
        printAligned(out, rows);
        out.println();
        out.println("+-99.9%: JMH's confidence half-width over the measured iterations (uncontended throughput only).");
        out.println("Ratios are value / that peer's value for the same section and metric: above 1 means more "
                + "(faster for rates, costlier for everything else), \"-\" means the peer was not measured there.");
        out.println("Peers: lettuce = raw Lettuce SET NX PX + EVALSHA compare-and-delete on one shared connection; "
                + "fenced = the same with the take a script storing the server's clock as a fencing token; raw-5 = the same two commands on each of the five masters of ours-redlock-5 at once (a Redlock's "
                + "floor); naive = StringRedisTemplate setIfAbsent + DefaultRedisScript; redisson = RLock tryLock(wait, 30 s); "
                + "redisson-wd = RLock watchdog (leaseTime -1); r-multi-5 / r-red-5 = RedissonMultiLock / "
                + "RedissonRedLock over the five masters of ours-redlock-5, watchdog; si-spin / si-pubsub = Spring Integration "
                + "RedisLockRegistry SPIN_LOCK / PUB_SUB_LOCK; curator / si-zk = Curator InterProcessMutex / Spring "
                + "Integration ZookeeperLockRegistry (the ZooKeeper sections, on one in-process ZooKeeper server). "
                + "In the semaphore and read-mostly sections: redisson = RPermitExpirableSemaphore / RReadWriteLock, "
                + "curator = InterProcessSemaphoreV2 / InterProcessReadWriteLock.");
    }

    private Figure peerFigure(Figure figure, Set<String> peer) {
        for (Figure candidate : this.figures) {
            if (peer.contains(candidate.implementation()) && candidate.section().equals(figure.section())
                    && candidate.metric().equals(figure.metric())) {
                return candidate;
            }
        }
        return null;
    }

    private static String formatRatio(Figure figure, Figure peer) {
        if (peer == null || Double.isNaN(figure.value()) || Double.isNaN(peer.value()) || peer.value() == 0) {
            return "-";
        }
        if (Objects.equals(peer.implementation(), figure.implementation())) {
            return "1";
        }
        double ratio = figure.value() / peer.value();
        return String.format(Locale.ROOT, ratio >= 100 ? "%.0f" : ratio >= 10 ? "%.1f" : "%.2f", ratio);
    }

    private static String formatValue(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        double magnitude = Math.abs(value);
        if (magnitude >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (magnitude >= 100) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }

    private static void printAligned(PrintStream out, List<String[]> rows) {
        int columns = rows.get(0).length;
        int[] widths = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                boolean numeric = i >= 3;
                String cell = row[i];
                String padding = " ".repeat(widths[i] - cell.length());
                line.append(numeric ? padding + cell : cell + padding).append(i < columns - 1 ? "  " : "");
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private static Map<String, Set<String>> peers() {
        Map<String, Set<String>> peers = new LinkedHashMap<>();
        peers.put("lettuce", Set.of(Implementations.LETTUCE_RAW));
        peers.put("fenced", Set.of(Implementations.LETTUCE_RAW_FENCED));
        peers.put("raw-5", Set.of(Implementations.LETTUCE_RAW_REDLOCK));
        peers.put("naive", Set.of(Implementations.NAIVE_TEMPLATE));
        peers.put("redisson", Set.of(Implementations.REDISSON, Implementations.REDISSON_PERMIT_SEMAPHORE,
                Implementations.REDISSON_READ_WRITE));
        peers.put("redisson-wd", Set.of(Implementations.REDISSON_WATCHDOG));
        peers.put("r-multi-5", Set.of(Implementations.REDISSON_MULTI_LOCK));
        peers.put("r-red-5", Set.of(Implementations.REDISSON_RED_LOCK));
        peers.put("si-spin", Set.of(Implementations.SI_SPIN));
        peers.put("si-pubsub", Set.of(Implementations.SI_PUBSUB));
        peers.put("curator", Set.of(Implementations.CURATOR_MUTEX, Implementations.CURATOR_SEMAPHORE,
                Implementations.CURATOR_READ_WRITE));
        peers.put("si-zk", Set.of(Implementations.SI_ZOOKEEPER));
        return peers;
    }
}
