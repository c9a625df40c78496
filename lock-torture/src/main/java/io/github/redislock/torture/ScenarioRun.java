package io.github.redislock.torture;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * One scenario from start to verdict: a fresh topology, a cleared witness, the worker JVMs; go, run, fault, run,
 * stop; then the records are read back from the witness and judged by {@link Verdict}. Every process started
 * here is stopped here, whatever happens.
 * <p>
 * A worker's states, as this run drives them; the coordinator and the workers talk only through the witness's
 * flags ({@code ready}, {@code go}, {@code stop}, {@code dead}), since they are separate processes:
 * <table>
 * <caption>Worker states</caption>
 * <tr><th>state</th><th>event</th><th>next</th></tr>
 * <tr><td>starting</td><td>its application context is up: it adds itself to {@code ready}</td><td>ready</td></tr>
 * <tr><td>starting</td><td>it exits, or is not ready within 5 minutes</td><td>the run fails with its log</td></tr>
 * <tr><td>ready</td><td>every worker is ready; the run sets {@code go}</td><td>running</td></tr>
 * <tr><td>running</td><td>the nemesis freezes it (SIGSTOP)</td><td>frozen</td></tr>
 * <tr><td>frozen</td><td>the nemesis thaws it (SIGCONT)</td><td>running</td></tr>
 * <tr><td>frozen</td><td>the nemesis kills it (SIGKILL), then adds it to {@code dead}</td><td>killed</td></tr>
 * <tr><td>running</td><td>the run sets {@code stop}: each thread finishes its lock call, records it, and
 * ends; the context closes</td><td>exited (0)</td></tr>
 * <tr><td>running</td><td>it does not exit within a minute of {@code stop}, or exits non-zero</td>
 * <td>a failure of the scenario</td></tr>
 * </table>
 * A killed worker's last section never records itself; {@code dead} tells the witness that its occupancy no
 * longer counts. Kills happen only to a frozen worker seen inside a section, so "killed while holding" is
 * certain, not a race.
 */
final class ScenarioRun {

    /**
     * Longer than a worker's own start may take: its Spring start (measured at up to 2 minutes, JVM included, on
     * the 2-core build machine at load 30) and then its warm-up, which retries for up to a minute before it gives
     * up and exits. Nothing before ready is judged, so this only bounds how long a hung start goes unnoticed.
     */
    private static final Duration WORKER_START_TIMEOUT = Duration.ofMinutes(5);

    private static final Duration WORKER_STOP_TIMEOUT = Duration.ofSeconds(60);

    /** The clock-drift scenario's slow clock (the first worker's) and fast one (the second worker's and Redis's). */
    static final double DRIFT_SLOW = 0.95;

    static final double DRIFT_FAST = 1.05;

    /** The clock drift allowance the clock-drift scenario's workers are given: enough for its clocks. */
    static final double DRIFT_ALLOWANCE = 0.1;

    /** The workers' {@code redis-lock.key-prefix}: a resource's lock key is this and its name. */
    static final String KEY_PREFIX = "redis-lock-torture:";

    private final Scenario scenario;

    private final String client;

    private final TortureOptions options;

    private final RedisServer witnessServer;

    private final Path logDirectory;

    private final String classPath;

    private final Witness witness;

    private @Nullable Topology topology;

    /** The workers' namespaces, for the scenarios that fault their links. */
    private @Nullable NetworkLab network;

    /** The client port of the one Redis or ZooKeeper server the suite started for the workers; 0 for others. */
    private int serverPort;

    /** What delays the workers' Redis or ZooKeeper traffic, for the slow-link scenarios. */
    private @Nullable DelayingRelay relay;

    /** The stepped clock of the Redis or of the first worker, for the clock-jump scenarios. */
    private @Nullable FakeClock clock;

    private final List<WorkerProcess> workers = new ArrayList<>();

    ScenarioRun(Scenario scenario, String client, TortureOptions options, RedisServer witnessServer,
            Path logDirectory, String classPath) {
        this.scenario = scenario;
        this.client = client;
        this.options = options;
        this.witnessServer = witnessServer;
        this.logDirectory = logDirectory;
        this.classPath = classPath;
        this.witness = Witness.connect(witnessServer.port());
    }

    ScenarioResult run() {
        long started = System.nanoTime();
        try {
            if (this.scenario.requirement().fakesClock()) {
                this.clock = FakeClock.create(this.logDirectory);
            }
            this.topology = openTopology();
            if (this.topology instanceof Topology.ZooKeeper zooKeeper) {
                this.serverPort = zooKeeper.server().port();
            }
            else if (this.topology instanceof Topology.Single single && !this.options.external()) {
                this.serverPort = single.server().port();
            }
            this.witness.command("FLUSHALL");
            if (this.scenario.requirement().needsNamespaces()) {
                this.network = NetworkLab.open(this.options.workers());
            }
            if (this.scenario == Scenario.SLOW_LINK || this.scenario == Scenario.ZOOKEEPER_SLOW_LINK) {
                this.relay = DelayingRelay.start(serverPort());
            }
            Map<String, String> properties = workerProperties(this.topology);
            for (int i = 1; i <= this.options.workers(); i++) {
                this.workers.add(WorkerProcess.start("w" + i, this.classPath, propertiesOf(i, properties),
                        this.logDirectory, (this.network != null) ? this.network.wrapper(i) : List.of(),
                        clockOf(i)));
            }
            awaitWorkersReady();
            this.witness.command("SET", "go", "1");
            Fault fault;
            if (this.scenario.faultFree()) {
                runFor(this.options.healthyRun());
                fault = Fault.none(now());
            }
            else {
                runFor(this.options.warmUp());
                fault = new Nemesis(this, this.options.lease()).inject(this.scenario);
                runFor(this.options.afterFault());
            }
            this.witness.command("SET", "stop", "1");
            List<String> workerFailures = awaitWorkersStopped();
            List<SectionRecord> records = records();
            List<TermRecord> terms = terms();
            if (this.options.records() != null) {
                writeRecords(this.options.records().resolve(this.scenario.id() + "-" + this.client + ".txt"), records,
                        terms, fault);
            }
            Verdict verdict = new Verdict(this.scenario, fault, this.options.lease(), records).terms(terms);
            workerFailures.forEach(verdict::fail);
            return verdict.judge(this.client, this.topology.describe(), counters(Witness.EXCEPTIONS), counters(Witness.LOST_EVENTS),
                    Duration.ofNanos(System.nanoTime() - started));
        }
        finally {
            this.workers.forEach(WorkerProcess::close);
            if (this.relay != null) {
                this.relay.close();
            }
            if (this.network != null) {
                this.network.close();
            }
            if (this.topology != null) {
                this.topology.close();
            }
            if (this.clock != null) {
                this.clock.close();
            }
            this.witness.close();
        }
    }

    // For the nemesis.

    long now() {
        return this.witness.timeMicros();
    }

    List<WorkerProcess> workers() {
        return this.workers;
    }

    <T extends Topology> T topology(Class<T> type) {
        return type.cast(this.topology);
    }

    NetworkLab network() {
        if (this.network == null) {
            throw new IllegalStateException(this.scenario.id() + " runs its workers without namespaces");
        }
        return this.network;
    }

    /** The port of the one server the workers lock on (Redis or ZooKeeper), which the partitions cut. */
    int serverPort() {
        if (this.serverPort == 0) {
            throw new IllegalStateException(this.scenario.id() + " locks on no single server the suite started");
        }
        return this.serverPort;
    }

    DelayingRelay relay() {
        if (this.relay == null) {
            throw new IllegalStateException(this.scenario.id() + " runs without a relay");
        }
        return this.relay;
    }

    FakeClock clock() {
        if (this.clock == null) {
            throw new IllegalStateException(this.scenario.id() + " fakes no clock");
        }
        return this.clock;
    }

    /** The resources a (frozen) worker's sections are inside, by the witness's occupancy sets. */
    List<String> resourcesHeldBy(WorkerProcess worker) {
        List<String> resources = new ArrayList<>();
        for (int i = 0; i < this.options.resources(); i++) {
            resources.add("r" + i);
        }
        resources.add(SectionKind.SLOW_RESOURCE);
        resources.add(SectionKind.LEADER_RESOURCE);
        List<String> held = new ArrayList<>();
        for (String resource : resources) {
            if (membersOf(resource).stream().anyMatch((member) -> member.startsWith(worker.id() + ":"))) {
                held.add(resource);
            }
        }
        return held;
    }

    /** The sections inside a resource now, by the witness. */
    Set<String> membersOf(String resource) {
        List<?> members = (List<?>) this.witness.command("SMEMBERS", Witness.occupancyKey(resource));
        return members.stream().map(String.class::cast).collect(Collectors.toCollection(HashSet::new));
    }

    /** How many section records the workers have written so far. */
    long recordCount() {
        return (Long) this.witness.command("LLEN", Witness.SECTIONS);
    }

    /**
     * Waits until the records of the given sections are among those written since {@code from} (a worker writes
     * a section's record once its lock call, the release included, has returned); fails after the timeout.
     */
    void awaitRecords(long from, Set<String> members, Duration timeout) {
        Set<String> missing = new HashSet<>(members);
        long next = from;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!missing.isEmpty()) {
            List<?> texts = (List<?>) this.witness.command("LRANGE", Witness.SECTIONS, Long.toString(next), "-1");
            next += texts.size();
            texts.forEach((text) -> missing.remove(SectionRecord.parse((String) text).member()));
            if (missing.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("No record of " + missing + " within " + timeout);
            }
            // The records come from other processes: the witness is polled for them.
            runFor(Duration.ofMillis(10));
        }
    }

    /** Asks a worker that leads the election to yield (see {@link LeaderWatch}). */
    void requestYield(WorkerProcess worker) {
        this.witness.command("SET", "yield:" + worker.id(), "1");
    }

    /** Tells the witness that a worker is dead: its sections are inside nothing any more. */
    void markDead(WorkerProcess worker) {
        this.witness.command("SADD", "dead", worker.id());
    }

    private Topology openTopology() {
        return switch (this.scenario.topology()) {
            case SINGLE -> (this.options.redis() != null) ? Topology.Single.external(this.options.redis())
                    : (this.options.sentinel() != null) ? Topology.Sentinel.external(this.options.sentinel(), 0)
                    : (this.options.redlock() != null) ? Topology.Redlock.external(this.options.redlock())
                    : (this.scenario == Scenario.REDIS_CLOCK_JUMP)
                            ? Topology.Single.start(FakedRedis.binary(), clock().environment())
                    : (this.scenario == Scenario.CLOCK_DRIFT)
                            ? Topology.Single.start(FakedRedis.binary(), FakeClock.drifting(DRIFT_FAST))
                    : Topology.Single.start(RedisBinary.find(), Map.of());
            case SENTINEL -> Topology.Sentinel.start(0);
            case SENTINEL_ACKNOWLEDGED -> Topology.Sentinel.start(1);
            case REDLOCK -> Topology.Redlock.start(5);
            case CLUSTER -> Topology.Cluster.start();
            case LAB_SENTINEL -> LabSentinel.start();
            case ZOOKEEPER_ENSEMBLE -> ZooKeeperEnsemble.start(this.classPath, this.logDirectory, this.options.lease());
            case ZOOKEEPER -> Topology.ZooKeeper.start(this.classPath, this.logDirectory,
                    (this.scenario == Scenario.ZOOKEEPER_SERVER_CLOCK_JUMP) ? clock().environment() : Map.of(),
                    this.options.lease());
        };
    }

    /**
     * How long a section waits for its lock: as asked on Redis, three times that on ZooKeeper. A ZooKeeper lock
     * cycle is three quorum operations, each written to the server's disk, and makes about a tenth of the cycles
     * a Redis lock does on this machine; with every thread of every worker queued on a few keys, waits in a
     * healthy run come near the wait asked for Redis, and a wait that ran out would fail the healthy run for a
     * matter of capacity, not of correctness.
     */
    private Duration waitTime() {
        return this.scenario.onZooKeeper() ? this.options.waitTime().multipliedBy(3) : this.options.waitTime();
    }

    /**
     * The variables that put worker {@code i} on a faked clock: the first worker in the clock-jump scenarios; in the
     * clock-drift scenario the first at {@value #DRIFT_SLOW}, the second at {@value #DRIFT_FAST}.
     */
    private Map<String, String> clockOf(int worker) {
        if (this.scenario == Scenario.CLOCK_DRIFT) {
            return (worker == 1) ? FakeClock.drifting(DRIFT_SLOW)
                    : (worker == 2) ? FakeClock.drifting(DRIFT_FAST) : Map.of();
        }
        return (fakesWorkerClock() && worker == 1) ? clock().environment() : Map.of();
    }

    private boolean fakesWorkerClock() {
        return this.scenario.fault() == Scenario.WORKER_CLOCK_JUMP
                || this.scenario.fault() == Scenario.ZOOKEEPER_WORKER_CLOCK_JUMP;
    }

    private Map<String, String> workerProperties(Topology topology) {
        Map<String, String> properties = new LinkedHashMap<>(topology.workerProperties());
        if (!this.scenario.onZooKeeper()) {
            properties.put("spring.data.redis.client-type", this.client);
            properties.put("spring.data.redis.timeout", "2s");
        }
        properties.put("spring.main.banner-mode", "off");
        properties.put("redis-lock.key-prefix", KEY_PREFIX);
        properties.put("redis-lock.lease-time", this.options.lease().toMillis() + "ms");
        properties.put("redis-lock.wait-time", waitTime().toMillis() + "ms");
        if (this.scenario == Scenario.CLOCK_DRIFT) {
            // Redis's clock runs at 1.05 and the slow worker's at 0.95: 9.5 % apart, beyond the default allowance of
            // 1 %, with which the cut-off slow worker says "held" after another has entered (see docs/torture-suite.md).
            properties.put("redis-lock.clock-drift", Double.toString(DRIFT_ALLOWANCE));
        }
        properties.put("torture.witness-port", Integer.toString(this.witnessServer.port()));
        properties.put("torture.threads", Integer.toString(this.options.threads()));
        properties.put("torture.resources", Integer.toString(this.options.resources()));
        properties.put("torture.wait-time", waitTime().toMillis() + "ms");
        properties.put("torture.fixed-lease", this.options.fixedLease().toMillis() + "ms");
        properties.put("torture.work-millis", Integer.toString(this.options.workMillis()));
        // Every kind on every topology: Redlock locks are reentrant and multi-key too, under the same engine.
        List<SectionKind> kinds = List.of(SectionKind.RENEWED, SectionKind.FIXED, SectionKind.REENTRANT,
                SectionKind.MULTI_KEY);
        if (this.scenario.workload() == Workload.LEADER) {
            // Every worker a candidate in one election; its leader runs @LeaderOnly sections only.
            kinds = List.of(SectionKind.LEADER);
            properties.put("redis-lock.leader.name", Workload.ELECTION);
        }
        properties.put("torture.kinds", kinds.stream().map(Enum::name).collect(Collectors.joining(",")));
        properties.put("torture.workload", this.scenario.workload().id());
        return properties;
    }

    /**
     * Worker {@code i}'s properties: in a namespace of its own, it reaches Redis (or the relay in front of it) and
     * the witness at its veth pair's host end, on their loopback ports; otherwise on loopback, as given.
     */
    private Map<String, String> propertiesOf(int worker, Map<String, String> properties) {
        if (this.network == null) {
            return properties;
        }
        String host = this.network.hostAddress(worker);
        Map<String, String> own = new LinkedHashMap<>(properties);
        int port = (this.relay != null) ? this.relay.port() : this.serverPort;
        if (this.topology instanceof Topology.Redlock redlock) {
            own.put("redis-lock.redlock.nodes", redlock.servers().stream()
                .map((server) -> "redis://" + host + ":" + server.port()).collect(Collectors.joining(",")));
        }
        else if (this.scenario.onZooKeeper()) {
            own.put("redis-lock.zookeeper.connect-string", host + ":" + port);
        }
        else {
            own.put("spring.data.redis.url", "redis://" + host + ":" + port);
        }
        own.put("torture.witness-host", host);
        return own;
    }

    private void awaitWorkersReady() {
        long deadline = System.nanoTime() + WORKER_START_TIMEOUT.toNanos();
        while ((Long) this.witness.command("SCARD", "ready") < this.workers.size()) {
            for (WorkerProcess worker : this.workers) {
                if (!worker.isAlive()) {
                    throw new IllegalStateException("Worker " + worker.id() + " exited while starting:\n"
                            + worker.logTail(40));
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Workers not ready after " + WORKER_START_TIMEOUT + ":\n"
                        + this.workers.get(0).logTail(40));
            }
            // The workers are other processes; the witness is polled for their readiness.
            runFor(Duration.ofMillis(50));
        }
    }

    private List<String> awaitWorkersStopped() {
        List<String> failures = new ArrayList<>();
        for (WorkerProcess worker : this.workers) {
            if (worker.wasKilled()) {
                continue;
            }
            Integer exit = worker.awaitExit(WORKER_STOP_TIMEOUT.toSeconds());
            if (exit == null) {
                failures.add(worker.id() + " did not stop within " + WORKER_STOP_TIMEOUT.toSeconds() + " s");
            }
            else if (exit != 0) {
                failures.add(worker.id() + " exited with " + exit + ": " + worker.logTail(20));
            }
        }
        return failures;
    }

    private List<SectionRecord> records() {
        long count = (Long) this.witness.command("LLEN", Witness.SECTIONS);
        List<SectionRecord> records = new ArrayList<>((int) count);
        int batch = 10_000;
        for (long from = 0; from < count; from += batch) {
            List<?> texts = (List<?>) this.witness.command("LRANGE", Witness.SECTIONS, Long.toString(from),
                    Long.toString(from + batch - 1));
            texts.forEach((text) -> records.add(SectionRecord.parse((String) text)));
        }
        return records;
    }

    /** The leader election workload's terms; none in the others. */
    private List<TermRecord> terms() {
        List<?> texts = (List<?>) this.witness.command("LRANGE", Witness.TERMS, "0", "-1");
        return texts.stream().map((text) -> TermRecord.parse((String) text)).toList();
    }

    private static void writeRecords(Path file, List<SectionRecord> records, List<TermRecord> terms, Fault fault) {
        List<String> lines = new ArrayList<>();
        lines.add("# fault " + fault.start() + ".." + fault.end() + " " + fault.faulted() + ": " + fault.description());
        lines.add("# worker|member|kind|resources|token|wait start|enter|leave|others inside|read|write|told|held until"
                + "|exception");
        records.forEach((record) -> lines.add(record.format()));
        if (!terms.isEmpty()) {
            lines.add("# term: worker|term|granted|leader until|ended|reason");
            terms.forEach((term) -> lines.add("# term " + term.format()));
        }
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, lines);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** A {@code <worker>|<name>} counter hash of the witness, summed by name over the workers. */
    private Map<String, Long> counters(String hash) {
        List<?> flat = (List<?>) this.witness.command("HGETALL", hash);
        Map<String, Long> sums = new TreeMap<>();
        IntStream.range(0, flat.size() / 2).forEach((i) -> {
            String field = (String) flat.get(2 * i);
            sums.merge(field.substring(field.indexOf('|') + 1), Long.parseLong((String) flat.get(2 * i + 1)), Long::sum);
        });
        return sums;
    }

    /** Lets the run go on (or a fault last) for the duration: time passing is the point, not a wait for an event. */
    static void runFor(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", ex);
        }
    }
}
