package io.github.redislock.torture;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisSentinel;
import io.github.redislock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * The faults, one per scenario. Each signals only processes the suite started, by PID, and returns when the
 * fault is over (the frozen process thawed, the killed one restarted), saying when it began and ended by the
 * witness's clock. The sleeps here are the faults' durations, not waits for something to happen.
 */
final class Nemesis {

    private final ScenarioRun run;

    private final Duration lease;

    Nemesis(ScenarioRun run, Duration lease) {
        this.run = run;
        this.lease = lease;
    }

    Fault inject(Scenario scenario) {
        return switch (scenario) {
            case HEALTHY, ZOOKEEPER_HEALTHY -> Fault.none(this.run.now());
            case REDIS_PAUSE -> pauseRedis();
            case REDIS_RESTART -> restartRedis();
            case WORKER_KILL -> killWorker();
            case WORKER_PAUSE -> pauseWorker(this.run.workers().get(0), SectionKind.SLOW_RESOURCE);
            case SENTINEL_FAILOVER, REPLICA_ACK_FAILOVER -> failoverWithLag();
            case REDLOCK_FAULTS -> redlockNodes();
            case REDLOCK_MINORITY -> redlockMinority();
            case CLUSTER_FAILOVER -> clusterFailover();
            case CLUSTER_SLOT_MIGRATION -> clusterSlotMigration();
            case SENTINEL_PARTITION -> sentinelPartition();
            case ZOOKEEPER_LEADER_KILL -> zooKeeperLeaderKill();
            case ZOOKEEPER_FOLLOWER_PARTITION -> zooKeeperPartition(false);
            case ZOOKEEPER_ENSEMBLE_SPLIT -> zooKeeperPartition(true);
            case WORKER_PARTITION -> partitionWorker("Redis", firstWorker(), SectionKind.SLOW_RESOURCE);
            case CLOCK_DRIFT -> partitionWorker("Redis (its clock at " + ScenarioRun.DRIFT_SLOW + ", Redis's at "
                    + ScenarioRun.DRIFT_FAST + ")", firstWorker(), SectionKind.SLOW_RESOURCE);
            case REDIS_PARTITION -> partitionServer("Redis");
            case SLOW_LINK -> slowLinks("Redis");
            case REDIS_CLOCK_JUMP -> jumpClock("the Redis server's", everyWorker());
            case WORKER_CLOCK_JUMP, ZOOKEEPER_WORKER_CLOCK_JUMP -> jumpClock(this.run.workers().get(0).id() + "'s",
                    Set.of(this.run.workers().get(0).id()));
            case ZOOKEEPER_WORKER_PARTITION -> partitionWorker("ZooKeeper", firstWorker(), SectionKind.SLOW_RESOURCE);
            case ZOOKEEPER_PARTITION -> partitionServer("ZooKeeper");
            case ZOOKEEPER_SLOW_LINK -> slowLinks("ZooKeeper");
            case ZOOKEEPER_SERVER_CLOCK_JUMP -> jumpClock("the ZooKeeper server's", everyWorker());
            // The shared workloads' scenarios: another scenario's fault.
            case SEMAPHORE_HEALTHY, SEMAPHORE_WORKER_PAUSE, SEMAPHORE_REDIS_RESTART, SEMAPHORE_WORKER_PARTITION,
                    READ_WRITE_HEALTHY, READ_WRITE_WORKER_PAUSE, READ_WRITE_REDIS_RESTART,
                    READ_WRITE_WORKER_PARTITION, SEMAPHORE_REDLOCK_FAULTS, READ_WRITE_REDLOCK_FAULTS,
                    ZOOKEEPER_SEMAPHORE_WORKER_PARTITION,
                    ZOOKEEPER_READ_WRITE_WORKER_PARTITION -> inject(scenario.fault());
            case ELECTION_WORKER_PAUSE, ELECTION_WORKER_PARTITION, ELECTION_REDIS_RESTART, ELECTION_WORKER_CLOCK_JUMP,
                    ZOOKEEPER_ELECTION_WORKER_PARTITION -> election(scenario.fault());
        };
    }

    /**
     * A fault in the leader election workload: on the worker that leads when it strikes (found inside the leader's
     * resource), frozen or cut off inside one of its {@code @LeaderOnly} sections; or on Redis; or, for the clock
     * jump, on the first worker (the one on the faked clock), made the leader first by asking the others to yield.
     */
    private Fault election(Scenario fault) {
        String resource = SectionKind.LEADER_RESOURCE;
        return switch (fault) {
            case WORKER_PAUSE -> pauseWorker(leader(), resource);
            case WORKER_PARTITION -> partitionWorker("Redis", leader(), resource);
            case ZOOKEEPER_WORKER_PARTITION -> partitionWorker("ZooKeeper", leader(), resource);
            case REDIS_RESTART -> restartRedis();
            case WORKER_CLOCK_JUMP -> {
                WorkerProcess faked = firstWorker();
                makeLeader(faked, Duration.ofMinutes(1));
                yield jumpClock(faked.id() + "'s (the leader's)", Set.of(faked.id()));
            }
            default -> throw new IllegalArgumentException("No leader election run of " + fault.id());
        };
    }

    /** The worker whose section is inside the leader's resource (the leader); fails after 3 leases. */
    private WorkerProcess leader() {
        String member = awaitAnyInside(SectionKind.LEADER_RESOURCE, this.lease.multipliedBy(3));
        String id = member.substring(0, member.indexOf(':'));
        return this.run.workers().stream().filter((w) -> w.id().equals(id)).findFirst().orElseThrow();
    }

    /**
     * Asks whichever other worker leads to yield ({@code yield:<worker>} in the witness, which its
     * {@link LeaderWatch} obeys) until the given one leads; fails after the timeout.
     */
    private void makeLeader(WorkerProcess wanted, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            WorkerProcess leading = leader();
            if (leading == wanted) {
                return;
            }
            this.run.requestYield(leading);
            // The yield, the hand-over and the next leader's first section take a while; look again after it.
            ScenarioRun.runFor(Duration.ofMillis(500));
        }
        throw new IllegalStateException(wanted + " did not become the leader within " + timeout);
    }

    private WorkerProcess firstWorker() {
        return this.run.workers().get(0);
    }

    private Fault pauseRedis() {
        RedisServer redis = this.run.topology(Topology.Single.class).server();
        long start = this.run.now();
        redis.pause();
        ScenarioRun.runFor(pastTheLease());
        redis.resume();
        return new Fault(start, this.run.now(), everyWorker(),
                "Redis frozen for " + pastTheLease().toMillis() + " ms");
    }

    private Fault restartRedis() {
        RedisServer redis = this.run.topology(Topology.Single.class).server();
        long start = this.run.now();
        redis.kill();
        redis.restart();
        long end = this.run.now();
        return new Fault(start, end, everyWorker(),
                "Redis killed and restarted empty in " + (end - start) / 1000 + " ms");
    }

    private Fault killWorker() {
        WorkerProcess victim = this.run.workers().get(0);
        List<String> held = freezeWhileHolding(victim, null);
        long start = this.run.now();
        victim.kill();
        this.run.markDead(victim);
        return new Fault(start, this.run.now(), Set.of(victim.id()),
                victim.id() + " killed holding " + held);
    }

    /**
     * Freezes the victim (the first worker; the leader in an election) inside one of its sections of the resource (the
     * long sections', or the leader's), and, where it can, inside a short one too, for 1.5
     * leases, and on until another worker's section has taken that resource; then thaws it. Its stale
     * release of the long sections' resource then lands while that other section is inside with seconds of work
     * left (its lease ran out at least 2 s into the freeze, and long sections work 1.5 leases): a release that
     * took the other's lock would let a third section in beside it, whose read makes the store refuse the other's
     * write. The fault's description says whether the release was seen to land so (its record written while the
     * other section was still inside), which {@code SabotagedReleaseTest} checks.
     */
    private Fault pauseWorker(WorkerProcess victim, String resource) {
        List<String> held = freezeWhileHolding(victim, resource);
        Set<String> stale = this.run.membersOf(resource);
        stale.removeIf((member) -> !member.startsWith(victim.id() + ":"));
        long start = this.run.now();
        ScenarioRun.runFor(pastTheLease());
        String successor = awaitOtherInside(resource, victim, this.lease.multipliedBy(3));
        long recorded = this.run.recordCount();
        victim.resume();
        long end = this.run.now();
        this.run.awaitRecords(recorded, stale, Duration.ofMinutes(1));
        boolean landed = this.run.membersOf(resource).contains(successor);
        return new Fault(start, end, Set.of(victim.id()), victim.id() + " frozen for " + (end - start) / 1000
                + " ms inside " + held + "; its stale release of " + resource + " returned "
                + (landed ? "while " : "after ") + successor + (landed ? " was inside" : " had left"));
    }

    /** The first section of another worker seen inside the (frozen) victim's resource; fails after the timeout. */
    private String awaitOtherInside(String resource, WorkerProcess victim, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            for (String member : this.run.membersOf(resource)) {
                if (!member.startsWith(victim.id() + ":")) {
                    return member;
                }
            }
            ScenarioRun.runFor(Duration.ofMillis(20));
        }
        throw new IllegalStateException("No other worker entered " + resource + " within " + timeout
                + " while " + victim + " was frozen");
    }

    /**
     * Cuts the replica off, waits until a long section has taken its lock since (that lock then exists on the
     * master only; with replica acknowledgement no such acquisition succeeds, and the wait ends after two leases),
     * kills the master and promotes the replica that never saw the lock, then brings the old master back as a
     * replica.
     */
    private Fault failoverWithLag() {
        RedisSentinel sentinel = this.run.topology(Topology.Sentinel.class).sentinel();
        RedisServer replica = sentinel.replicas().get(0);
        long start = this.run.now();
        Set<String> before = this.run.membersOf(SectionKind.SLOW_RESOURCE);
        sentinel.detach(replica);
        boolean unreplicated = awaitNewMember(SectionKind.SLOW_RESOURCE, before, this.lease.multipliedBy(2));
        sentinel.master().kill();
        RedisServer promoted = sentinel.failover();
        sentinel.heal();
        return new Fault(start, this.run.now(), everyWorker(), "replica " + replica.port() + " cut off, "
                + (unreplicated ? "a long section locked on the master alone" : "no lock taken on the master alone")
                + ", master killed, " + promoted.port() + " promoted, old master back as a replica");
    }

    private boolean awaitNewMember(String resource, Set<String> before, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Set<String> now = this.run.membersOf(resource);
            now.removeAll(before);
            if (!now.isEmpty()) {
                return true;
            }
            ScenarioRun.runFor(Duration.ofMillis(20));
        }
        return false;
    }

    private Fault redlockNodes() {
        List<RedisServer> nodes = this.run.topology(Topology.Redlock.class).servers();
        long start = this.run.now();
        nodes.get(0).kill();
        nodes.get(1).kill();
        ScenarioRun.runFor(this.lease);
        nodes.get(0).restart();
        nodes.get(1).restart();
        ScenarioRun.runFor(Duration.ofSeconds(1));
        nodes.get(2).pause();
        ScenarioRun.runFor(pastTheLease());
        nodes.get(2).resume();
        return new Fault(start, this.run.now(), everyWorker(), "nodes 1, 2 down for " + this.lease.toMillis()
                + " ms and back empty; node 3 frozen for " + pastTheLease().toMillis() + " ms");
    }

    /**
     * Cuts the first worker's links to 3 of the 5 Redlock nodes just after one of its long sections entered (frozen
     * for the moment it takes, as {@link #partitionWorker}), or while it holds any lock if no long section of it
     * enters within 20 s, for 1.5 leases: it reaches nodes 1 and 2 only.
     */
    private Fault redlockMinority() {
        WorkerProcess victim = this.run.workers().get(0);
        List<RedisServer> nodes = this.run.topology(Topology.Redlock.class).servers();
        // Redlock waits by retries, not in a line: a worker's long section may wait its turn on the long sections'
        // resource for a long time; after 20 s any of its sections will do.
        List<String> held = freezeJustInside(victim, SectionKind.SLOW_RESOURCE, Duration.ofSeconds(20));
        if (held == null) {
            held = freezeWhileHolding(victim, null);
        }
        long start = this.run.now();
        this.run.network().cut(1, nodes.get(2).port(), nodes.get(3).port(), nodes.get(4).port());
        victim.resume();
        ScenarioRun.runFor(pastTheLease());
        this.run.network().heal(1);
        return new Fault(start, this.run.now(), Set.of(victim.id()), victim.id() + " reached 2 of the 5 nodes (links "
                + "to nodes 3-5 cut) for " + pastTheLease().toMillis() + " ms while it held " + held);
    }

    /** Kills the master of the long sections' slot once a long section holds it; its replica takes over. */
    private Fault clusterFailover() {
        RedisCluster cluster = this.run.topology(Topology.Cluster.class).cluster();
        int slot = cluster.slot(ScenarioRun.KEY_PREFIX + SectionKind.SLOW_RESOURCE);
        String inside = awaitAnyInside(SectionKind.SLOW_RESOURCE, this.lease.multipliedBy(3));
        RedisServer master = cluster.masterOf(slot);
        long start = this.run.now();
        RedisServer promoted = cluster.failOver(master);
        long end = this.run.now();
        return new Fault(start, end, everyWorker(), "master " + master.port() + " of slot " + slot + " killed while "
                + inside + " held it; replica " + promoted.port() + " took over, the old master rejoined as its replica, in "
                + (end - start) / 1000 + " ms");
    }

    /** Moves the long sections' slot, with its keys, to another master once a long section holds it. */
    private Fault clusterSlotMigration() {
        RedisCluster cluster = this.run.topology(Topology.Cluster.class).cluster();
        int slot = cluster.slot(ScenarioRun.KEY_PREFIX + SectionKind.SLOW_RESOURCE);
        String inside = awaitAnyInside(SectionKind.SLOW_RESOURCE, this.lease.multipliedBy(3));
        RedisServer source = cluster.masterOf(slot);
        RedisServer target = cluster.masters().stream().filter((master) -> master != source).findFirst().orElseThrow();
        long start = this.run.now();
        cluster.migrateSlot(slot, target);
        long end = this.run.now();
        return new Fault(start, end, everyWorker(), "slot " + slot + " migrated from " + source.port() + " to "
                + target.port() + " while " + inside + " held it, in " + (end - start) / 1000 + " ms");
    }

    /**
     * Cuts the master (lab server 1) off from the replica and the three Sentinels once a long section holds its lock,
     * for 2 leases (the Sentinels call it down after 1 s and promote the replica), then heals the cut.
     */
    private Fault sentinelPartition() {
        LabSentinel sentinel = this.run.topology(LabSentinel.class);
        String inside = awaitAnyInside(SectionKind.SLOW_RESOURCE, this.lease.multipliedBy(3));
        long start = this.run.now();
        sentinel.lab().isolate(1, Set.of(2, 3, 4, 5));
        boolean promoted = sentinel.awaitFailover(this.lease.multipliedBy(2).toMillis());
        String during = sentinel.masterNamed() + " named master, roles " + sentinel.roles();
        ScenarioRun.runFor(Duration.ofNanos(Math.max(0, this.lease.multipliedBy(2).toNanos()
                - (this.run.now() - start) * 1000)));
        sentinel.lab().heal(1);
        return new Fault(start, this.run.now(), everyWorker(), "master " + sentinel.servers().get(0).host()
                + " cut off from its replica and the Sentinels for " + this.lease.multipliedBy(2).toMillis()
                + " ms while " + inside + " held a lock on it; " + (promoted ? "failed over: " : "no failover: ")
                + during);
    }

    /** Kills the ensemble's leader once a long section holds its lock; restarts it on its data 1.5 leases later. */
    private Fault zooKeeperLeaderKill() {
        ZooKeeperEnsemble ensemble = this.run.topology(ZooKeeperEnsemble.class);
        String inside = awaitAnyInside(SectionKind.SLOW_RESOURCE, this.lease.multipliedBy(3));
        int leader = ensemble.leader();
        long start = this.run.now();
        ensemble.servers().get(leader - 1).kill();
        ScenarioRun.runFor(pastTheLease());
        String during = modes(ensemble);
        ensemble.servers().get(leader - 1).restart();
        return new Fault(start, this.run.now(), everyWorker(), "leader (server " + leader + ") killed while " + inside
                + " held a lock, restarted after " + pastTheLease().toMillis() + " ms; modes before the restart: "
                + during);
    }

    /**
     * Cuts one server off from the other two once a long section holds its lock, for 1.5 leases: a follower, or
     * (a 2/1 split with the leader alone) the leader.
     */
    private Fault zooKeeperPartition(boolean leader) {
        ZooKeeperEnsemble ensemble = this.run.topology(ZooKeeperEnsemble.class);
        String inside = awaitAnyInside(SectionKind.SLOW_RESOURCE, this.lease.multipliedBy(3));
        int leading = ensemble.leader();
        int cut = leader ? leading : (leading % ZooKeeperEnsemble.MEMBERS) + 1;
        Set<Integer> others = new java.util.TreeSet<>(Set.of(1, 2, 3));
        others.remove(cut);
        long start = this.run.now();
        ensemble.lab().isolate(cut, others);
        ScenarioRun.runFor(pastTheLease());
        String during = modes(ensemble);
        ensemble.lab().heal(cut);
        return new Fault(start, this.run.now(), everyWorker(), (leader ? "leader" : "follower") + " (server " + cut
                + ") cut off from servers " + others + " for " + pastTheLease().toMillis() + " ms while " + inside
                + " held a lock; modes before the heal: " + during);
    }

    private static String modes(ZooKeeperEnsemble ensemble) {
        List<String> modes = new java.util.ArrayList<>();
        for (int i = 0; i < ZooKeeperEnsemble.MEMBERS; i++) {
            modes.add((i + 1) + " " + ensemble.modeOf(i));
        }
        return String.join(", ", modes);
    }

    /** The first section seen inside the resource; fails after the timeout. */
    private String awaitAnyInside(String resource, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Set<String> members = this.run.membersOf(resource);
            if (!members.isEmpty()) {
                return members.iterator().next();
            }
            ScenarioRun.runFor(Duration.ofMillis(20));
        }
        throw new IllegalStateException("No section entered " + resource + " within " + timeout);
    }

    /**
     * Cuts the victim's (the first worker's; the leader's in an election) link to the server (Redis, or ZooKeeper)
     * just after one of its sections of the resource (the long sections', or the leader's) entered:
     * frozen for the moment it takes to cut the link (so the cut surely lands inside that section, which then runs
     * on for about 1.5 leases, past the lease it cannot renew or the session the server expires), then thawed at
     * once. Its JVM runs on, cut off, for 1.5 leases (a ZooKeeper worker's session timeout is one lease); then the
     * link is healed.
     */
    private Fault partitionWorker(String server, WorkerProcess victim, String resource) {
        int port = this.run.serverPort();
        int index = this.run.workers().indexOf(victim) + 1;
        List<String> held = freezeJustInside(victim, resource);
        long start = this.run.now();
        this.run.network().cut(index, port);
        victim.resume();
        ScenarioRun.runFor(pastTheLease());
        this.run.network().heal(index);
        return new Fault(start, this.run.now(), Set.of(victim.id()), victim.id() + "'s link to " + server + " cut for "
                + pastTheLease().toMillis() + " ms (packets dropped) while it held " + held);
    }

    /** Cuts every worker's link to the server, one right after another, for 1.5 leases. */
    private Fault partitionServer(String server) {
        int port = this.run.serverPort();
        long start = this.run.now();
        for (int i = 1; i <= this.run.workers().size(); i++) {
            this.run.network().cut(i, port);
        }
        long cut = this.run.now();
        ScenarioRun.runFor(pastTheLease());
        for (int i = 1; i <= this.run.workers().size(); i++) {
            this.run.network().heal(i);
        }
        return new Fault(start, this.run.now(), everyWorker(), server + " cut off from every worker for "
                + pastTheLease().toMillis() + " ms (packets dropped; all cut within " + (cut - start) / 1000 + " ms)");
    }

    /**
     * Between every worker and the server, for 3 leases: each chunk held 25-100 ms each way (uniform: 50-200 ms a
     * round trip, in order) by the relay in front of it, and 2 % of packets dropped each way in the workers'
     * namespaces, which TCP retransmits.
     */
    private Fault slowLinks(String server) {
        DelayingRelay relay = this.run.relay();
        long start = this.run.now();
        relay.delay(25, 100);
        for (int i = 1; i <= this.run.workers().size(); i++) {
            this.run.network().lose(i, relay.port(), 2);
        }
        ScenarioRun.runFor(this.lease.multipliedBy(3));
        for (int i = 1; i <= this.run.workers().size(); i++) {
            this.run.network().heal(i);
        }
        relay.delay(0, 0);
        return new Fault(start, this.run.now(), everyWorker(), "every worker's " + server
                + " traffic delayed 25-100 ms each "
                + "way, 2 % of its packets dropped each way, for " + this.lease.multipliedBy(3).toMillis() + " ms");
    }

    /**
     * Steps the faked wall clock 2 leases ahead (every lease Redis counts by it runs out at once), keeps it there
     * for a lease, and steps it back. The fault spans the steps' lag: the step ahead lands within it after the
     * fault's start, the step back before its end.
     */
    private Fault jumpClock(String whose, Set<String> faulted) {
        Duration ahead = this.lease.multipliedBy(2);
        long start = this.run.now();
        this.run.clock().offset(ahead);
        ScenarioRun.runFor(FakeClock.LAG.plus(this.lease));
        this.run.clock().offset(Duration.ZERO);
        ScenarioRun.runFor(FakeClock.LAG);
        return new Fault(start, this.run.now(), faulted, whose + " wall clock " + ahead.toSeconds() + " s ahead for "
                + this.lease.toMillis() + "-" + this.lease.plus(FakeClock.LAG).toMillis() + " ms, then back");
    }

    /**
     * Freezes the worker at a moment when its sections are inside resources (the witness says so, and a frozen
     * process cannot leave), one of them {@code required} if given; returns the resources it holds. It waits for
     * a moment when the worker holds two or more, where a fault does the most harm, for up to 10 s, then settles
     * for one; it gives up after a minute.
     */
    private List<String> freezeWhileHolding(WorkerProcess victim, @Nullable String required) {
        long started = System.nanoTime();
        long settle = started + Duration.ofSeconds(10).toNanos();
        long deadline = started + Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() < deadline) {
            victim.pause();
            List<String> held = this.run.resourcesHeldBy(victim);
            boolean enough = (required != null) ? held.contains(required) : !held.isEmpty();
            // The leader's resource is the only one its worker takes: nothing more to wait for.
            boolean alone = SectionKind.LEADER_RESOURCE.equals(required);
            if (enough && (held.size() >= 2 || alone || System.nanoTime() > settle)) {
                return held;
            }
            victim.resume();
            ScenarioRun.runFor(Duration.ofMillis(20));
        }
        throw new IllegalStateException(victim + " was never seen inside a section"
                + ((required != null) ? " of " + required : ""));
    }

    /**
     * Freezes the worker as soon as one of its sections is seen to have newly entered the resource (the witness
     * polled every 20 ms); returns the resources it holds. Gives up after a minute.
     */
    private List<String> freezeJustInside(WorkerProcess victim, String resource) {
        List<String> held = freezeJustInside(victim, resource, Duration.ofMinutes(1));
        if (held == null) {
            throw new IllegalStateException(victim + " was never seen entering " + resource);
        }
        return held;
    }

    /** As {@link #freezeJustInside(WorkerProcess, String)}, giving up after {@code patience}: null then. */
    private @Nullable List<String> freezeJustInside(WorkerProcess victim, String resource, Duration patience) {
        Set<String> before = this.run.membersOf(resource);
        long deadline = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < deadline) {
            Set<String> entered = this.run.membersOf(resource);
            entered.removeAll(before);
            if (entered.stream().anyMatch((member) -> member.startsWith(victim.id() + ":"))) {
                victim.pause();
                List<String> held = this.run.resourcesHeldBy(victim);
                if (held.contains(resource)) {
                    return held;
                }
                victim.resume();
            }
            ScenarioRun.runFor(Duration.ofMillis(20));
        }
        return null;
    }

    private Duration pastTheLease() {
        return this.lease.plus(this.lease.dividedBy(2));
    }

    private Set<String> everyWorker() {
        return this.run.workers().stream().map(WorkerProcess::id).collect(Collectors.toSet());
    }
}
