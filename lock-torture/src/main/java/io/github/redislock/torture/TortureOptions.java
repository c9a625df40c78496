package io.github.redislock.torture;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * The command line of the suite, validated: every option is {@code --name=value}; an unknown name or a bad value
 * fails with a message that names it.
 *
 * @param scenarios the scenarios to run, in order
 * @param workers worker JVMs per scenario
 * @param threads threads per worker
 * @param resources contended resources (lock keys)
 * @param lease the renewed lease ({@code redis-lock.lease-time})
 * @param fixedLease the lease of fixed-lease sections
 * @param waitTime how long a section waits for its lock
 * @param workMillis the longest a section works while holding its lock
 * @param healthyRun how long the healthy scenario runs
 * @param warmUp how long workers run before a fault
 * @param afterFault how long they run after it
 * @param clients the client libraries to run every Redis scenario on: {@code lettuce}, {@code jedis}, or both (the
 * {@code zookeeper-*} scenarios run once, on Curator, see {@link #runs()})
 * @param redis a user's Redis URL, or null to start one
 * @param sentinel a user's Sentinel set-up ({@code master@host:port,…}), or null
 * @param redlock a user's Redlock masters (comma-separated URLs), or null
 * @param sabotage a deliberate defect to build into the workers' library ({@link Sabotage}), or null
 * @param records a directory to write every scenario's section records to, or null
 */
record TortureOptions(List<Scenario> scenarios, int workers, int threads, int resources, Duration lease,
        Duration fixedLease, Duration waitTime, int workMillis, Duration healthyRun, Duration warmUp,
        Duration afterFault, List<String> clients, @Nullable String redis, @Nullable String sentinel,
        @Nullable String redlock, @Nullable Sabotage sabotage, @Nullable Path records) {

    static final String USAGE = """
            java -jar redis-lock-torture.jar [--profile=short|full] [--scenarios=healthy,worker-pause,…]
                [--workers=3] [--threads=8] [--resources=3] [--lease=3s] [--fixed-lease=2s] [--wait=3s]
                [--work-millis=8] [--healthy=60s] [--warm-up=3s] [--after-fault=12s] [--client=lettuce|jedis|both]
                [--redis=redis://host:port | --sentinel=master@host:port,host:port | --redlock=redis://…,redis://…]
                [--records=DIRECTORY]
            Scenarios: healthy, redis-pause, redis-restart, worker-kill, worker-pause, sentinel-failover,
                replica-ack-failover, redlock-faults, redlock-minority, cluster-failover, cluster-slot-migration,
                sentinel-partition, worker-partition, redis-partition, slow-link, redis-clock-jump, worker-clock-jump,
                clock-drift; on semaphores and on read/write locks: semaphore-healthy, semaphore-worker-pause,
                semaphore-redis-restart, semaphore-worker-partition, semaphore-redlock-faults, read-write-healthy,
                read-write-worker-pause, read-write-redis-restart, read-write-worker-partition,
                read-write-redlock-faults; on ZooKeeper (servers the suite starts): zookeeper-healthy,
                zookeeper-worker-partition, zookeeper-partition, zookeeper-slow-link, zookeeper-worker-clock-jump,
                zookeeper-server-clock-jump (one server), zookeeper-leader-kill, zookeeper-follower-partition,
                zookeeper-ensemble-split (a 3-server ensemble), zookeeper-semaphore-worker-partition,
                zookeeper-read-write-worker-partition; leader election (every worker a candidate, the fault on the
                leader): election-worker-pause, election-worker-partition, election-redis-restart,
                election-worker-clock-jump, zookeeper-election-worker-partition. The partitions, the slow links, the
                ensemble and sentinel-partition need root, ip netns and nft; the clock jumps and the drift need
                libfaketime; where
                the machine lacks them they are skipped, saying why. The short profile is healthy (10 s), worker-pause
                and read-write-worker-pause on Lettuce;
                the full one (the default) is every scenario, on Lettuce and then on Jedis, then the ZooKeeper ones once,
                on Curator (--client does not apply to them). With --redis, --sentinel or --redlock the suite locks on your
                Redis (writing keys under redis-lock-torture:) and runs only the Redis scenarios that fault workers,
                never your servers. --records writes each scenario's section records (one line per lock call; and
                the leader election's terms) there.""";

    static TortureOptions parse(String... args) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String arg : args) {
            if (!arg.startsWith("--") || !arg.contains("=")) {
                throw new IllegalArgumentException("Options are --name=value, not '" + arg + "'\n" + USAGE);
            }
            values.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
        }
        Options options = new Options(values);
        String profile = options.text("profile", "full");
        if (!profile.equals("short") && !profile.equals("full")) {
            throw new IllegalArgumentException("--profile is short or full, not '" + profile + "'");
        }
        boolean quick = profile.equals("short");
        String redis = options.optional("redis");
        String sentinel = options.optional("sentinel");
        String redlock = options.optional("redlock");
        long external = Arrays.asList(redis, sentinel, redlock).stream().filter((v) -> v != null).count();
        if (external > 1) {
            throw new IllegalArgumentException("Give one of --redis, --sentinel and --redlock, not several");
        }
        List<Scenario> scenarios = new ArrayList<>();
        String named = options.optional("scenarios");
        if (named != null) {
            for (String id : named.split(",")) {
                scenarios.add(named("scenarios", id.trim(), Scenario::of));
            }
        }
        else {
            scenarios.addAll(quick ? Scenario.shortProfile() : Scenario.fullProfile());
        }
        if (external > 0) {
            List<Scenario> touching = scenarios.stream().filter(Scenario::touchesRedis).toList();
            if (named != null && !touching.isEmpty()) {
                throw new IllegalArgumentException("Scenarios " + touching.stream().map(Scenario::id).toList()
                        + " fault Redis processes or their links, which the suite does only to servers it started itself");
            }
            scenarios.removeAll(touching);
            List<Scenario> zooKeeper = scenarios.stream().filter(Scenario::onZooKeeper).toList();
            if (named != null && !zooKeeper.isEmpty()) {
                throw new IllegalArgumentException("Scenarios " + zooKeeper.stream().map(Scenario::id).toList()
                        + " lock on a ZooKeeper server the suite starts, not on your Redis");
            }
            scenarios.removeAll(zooKeeper);
        }
        String client = options.text("client", quick ? "lettuce" : "both");
        List<String> clients = switch (client) {
            case "lettuce", "jedis" -> List.of(client);
            case "both" -> List.of("lettuce", "jedis");
            default -> throw new IllegalArgumentException("--client is lettuce, jedis or both, not '" + client + "'");
        };
        String sabotage = options.optional("sabotage");
        String records = options.optional("records");
        TortureOptions parsed = new TortureOptions(scenarios, options.positive("workers", 3),
                options.positive("threads", 8), options.positive("resources", 3),
                options.duration("lease", Duration.ofSeconds(3)), options.duration("fixed-lease", Duration.ofSeconds(2)),
                options.duration("wait", Duration.ofSeconds(3)), options.positive("work-millis", 8),
                options.duration("healthy", quick ? Duration.ofSeconds(10) : Duration.ofSeconds(60)),
                options.duration("warm-up", Duration.ofSeconds(3)),
                options.duration("after-fault", quick ? Duration.ofSeconds(10) : Duration.ofSeconds(12)), clients,
                redis, sentinel, redlock, (sabotage != null) ? named("sabotage", sabotage, Sabotage::of) : null,
                (records != null) ? Path.of(records) : null);
        options.rejectUnknown();
        if (parsed.workers() < 2) {
            throw new IllegalArgumentException("--workers must be at least 2: one to fault and one to see it");
        }
        if (parsed.resources() < 2) {
            throw new IllegalArgumentException("--resources must be at least 2, for the sections that lock two");
        }
        if (parsed.fixedLease().compareTo(parsed.lease()) > 0) {
            throw new IllegalArgumentException("--fixed-lease must not be longer than --lease");
        }
        return parsed;
    }

    /** Looks a name up, saying in the message which option held an unknown one. */
    private static <T> T named(String option, String id, Function<String, T> lookUp) {
        try {
            return lookUp.apply(id);
        }
        catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("--" + option + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Each scenario with the client it runs on, in order: the Redis scenarios on each client asked for in turn,
     * then the ZooKeeper scenarios once, on {@value #CURATOR} (the only ZooKeeper client: {@code --client} chooses
     * between Redis clients).
     */
    List<Run> runs() {
        List<Run> runs = new ArrayList<>();
        for (String client : this.clients) {
            this.scenarios.stream().filter((scenario) -> !scenario.onZooKeeper())
                .forEach((scenario) -> runs.add(new Run(scenario, client)));
        }
        this.scenarios.stream().filter(Scenario::onZooKeeper).forEach((scenario) -> runs.add(new Run(scenario, CURATOR)));
        return runs;
    }

    /** The client the ZooKeeper scenarios run on, as the report names it. */
    static final String CURATOR = "curator";

    /** A scenario and the client its workers use. */
    record Run(Scenario scenario, String client) {
    }

    /** Whether the workers lock on a Redis the user gave rather than one the suite started. */
    boolean external() {
        return this.redis != null || this.sentinel != null || this.redlock != null;
    }

    /** Reads options, remembering which were asked for so that the rest can be rejected. */
    private static final class Options {

        private final Map<String, String> values;

        Options(Map<String, String> values) {
            this.values = new LinkedHashMap<>(values);
        }

        @Nullable String optional(String name) {
            return this.values.remove(name);
        }

        String text(String name, String fallback) {
            String value = optional(name);
            return (value != null) ? value : fallback;
        }

        int positive(String name, int fallback) {
            String value = optional(name);
            if (value == null) {
                return fallback;
            }
            try {
                int number = Integer.parseInt(value);
                if (number > 0) {
                    return number;
                }
            }
            catch (NumberFormatException ex) {
                // reported below
            }
            throw new IllegalArgumentException("--" + name + " must be a positive whole number, not '" + value + "'");
        }

        Duration duration(String name, Duration fallback) {
            String value = optional(name);
            if (value == null) {
                return fallback;
            }
            Duration duration = null;
            try {
                duration = org.springframework.boot.convert.DurationStyle.detectAndParse(value);
            }
            catch (IllegalArgumentException ex) {
                // reported below
            }
            if (duration == null || duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("--" + name + " must be a positive duration such as 3s or 500ms, not '"
                        + value + "'");
            }
            return duration;
        }

        void rejectUnknown() {
            if (!this.values.isEmpty()) {
                throw new IllegalArgumentException("Unknown option(s) " + this.values.keySet() + "\n" + USAGE);
            }
        }
    }
}
