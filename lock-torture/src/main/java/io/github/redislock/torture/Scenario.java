package io.github.redislock.torture;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The scenarios: a topology, a nemesis, and what the verdict forbids beyond the rules that hold in every scenario
 * (see {@link Verdict}). A <em>strict</em> scenario allows no overlap and no rejected write at all: nothing in it
 * excuses a second holder.
 * <p>
 * The {@code zookeeper-*} scenarios are the same faults on the ZooKeeper store ({@code lock-zookeeper}): one
 * ZooKeeper server the suite started in a JVM of its own, workers with a session timeout of one lease, the same
 * witness and fencing store, the same verdict. They run once, on Curator, whatever the client option says.
 * <p>
 * The {@code semaphore-*} and {@code read-write-*} scenarios inject another scenario's fault ({@link #fault()}),
 * under its rules, into workers whose keys are semaphores or read/write locks ({@link Workload}); an overlap there
 * is a breach of the key's bound (more holders than permits, a writer beside anyone).
 * <p>
 * The {@code election-*} scenarios inject a fault into a leader election ({@link Workload#LEADER}): every worker a
 * candidate, the fault on the worker that leads when it strikes (the clock jump's worker is made the leader first,
 * by the others yielding); besides the rules for sections, {@link TermVerdict} judges the workers' terms.
 */
enum Scenario {

    HEALTHY(TopologyKind.SINGLE, true, false, "no fault: contention only, long enough to cross every renewal"),

    REDIS_PAUSE(TopologyKind.SINGLE, false, true, "the Redis frozen (SIGSTOP) for longer than the lease"),

    REDIS_RESTART(TopologyKind.SINGLE, false, true, "the Redis killed (SIGKILL) and restarted empty"),

    WORKER_KILL(TopologyKind.SINGLE, true, false, "a worker killed (SIGKILL) while it holds a lock"),

    WORKER_PAUSE(TopologyKind.SINGLE, false, false,
            "a worker frozen (SIGSTOP) inside a section for longer than the lease, as in a long GC pause"),

    SENTINEL_FAILOVER(TopologyKind.SENTINEL, false, true,
            "the replica cut off (replication lag), the master killed, the stale replica promoted"),

    REPLICA_ACK_FAILOVER(TopologyKind.SENTINEL_ACKNOWLEDGED, true, true,
            "the same failover with redis-lock.replicas-to-acknowledge=1"),

    /**
     * Not strict: Redlock keeps a lock through these faults only where it sits on enough nodes. A lock that sits on
     * 3 or 4 of the 5 (an acquisition returns once a majority took it) loses its majority when the nodes killed or
     * frozen are among them; no store can keep it then, and what Redlock guarantees is that its holder learns so
     * within its validity (reported lost, {@code isHeld()} false) and that no one else takes a majority while it is
     * valid, the killed nodes coming back only after a lease. A section that runs on past being told overlaps the
     * next holder, as after a pause; every overlap must still have been told.
     */
    REDLOCK_FAULTS(TopologyKind.REDLOCK, false, true,
            "Redlock on 5 masters: 2 killed, restarted empty after a lease, then 1 frozen past the lease"),

    /**
     * Not strict: a worker that reaches 2 of the 5 nodes can extend its lock on a minority only, so it loses it when
     * its validity runs out by its own clock (told, {@code RENEWAL}), and the others take a majority once the keys
     * on the 3 nodes it cannot reach expire. Its own acquisitions meanwhile reach no majority and fail.
     */
    REDLOCK_MINORITY(TopologyKind.REDLOCK, false, true, Requirement.NAMESPACES,
            "one worker's links to 3 of the 5 Redlock nodes cut while it holds locks (it reaches a minority), for "
                    + "longer than the lease"),

    /**
     * Not strict: a cluster master is killed while a long section holds a lock on it; its replica takes over after
     * the node timeout with what replication had carried (a lock taken just before the kill may be missing, as in a
     * Sentinel failover: the store forgets it, see {@link Verdict#STORE_FORGETS}). Renewals fail while no node serves
     * the slot, and a lock whose lease runs out by its holder's clock meanwhile is lost, told.
     */
    CLUSTER_FAILOVER(TopologyKind.CLUSTER, false, true,
            "Redis Cluster (3 masters with a replica each): the master of a held lock's slot killed, its replica "
                    + "takes over, the old master rejoins as a replica"),

    /**
     * Not strict: the slot of a held lock moves to another master with its keys ({@code MIGRATE} keeps their
     * expiry), so the store forgets nothing; scripts over the slot meanwhile may be answered {@code ASK} or
     * {@code TRYAGAIN}, and a renewal that fails until the lease has run out by its holder's clock loses the lock,
     * told.
     */
    CLUSTER_SLOT_MIGRATION(TopologyKind.CLUSTER, false, true,
            "Redis Cluster: the slot of a held lock, with its keys, migrated to another master while the lock is held"),

    /**
     * Not strict: the master is cut off from its replica and from the Sentinels, not from the workers, and not killed:
     * the Sentinels promote the replica, and for a while two masters accept writes. Clients that follow the
     * Sentinels' switch (Jedis listens for it) lock on the new master, where locks taken on the old one after the cut
     * are missing (the store forgets them, see {@link Verdict#STORE_FORGETS}); clients that stay on the old master
     * (Lettuce keeps its connection) hold locks there that nobody else sees. After the heal the Sentinels make the
     * old master a replica of the new one, dropping what was written to it meanwhile.
     */
    SENTINEL_PARTITION(TopologyKind.LAB_SENTINEL, false, true, Requirement.SERVER_NAMESPACES,
            "Sentinel: the master cut off from its replica and the Sentinels (not from the workers, not killed) "
                    + "while locks are held on it, for 2 leases"),

    WORKER_PARTITION(TopologyKind.SINGLE, false, true, Requirement.NAMESPACES,
            "one worker's link to Redis cut (packets dropped, connections left open) while it holds locks, "
                    + "for longer than the lease"),

    REDIS_PARTITION(TopologyKind.SINGLE, false, true, Requirement.NAMESPACES,
            "Redis cut off from every worker at once (packets dropped) for longer than the lease"),

    SLOW_LINK(TopologyKind.SINGLE, true, true, Requirement.NAMESPACES,
            "50-200 ms round trips with jitter and packet loss between every worker and Redis, for 3 leases"),

    REDIS_CLOCK_JUMP(TopologyKind.SINGLE, false, true, Requirement.FAKETIME_REDIS,
            "the Redis server's wall clock 2 leases ahead for a lease, then back"),

    WORKER_CLOCK_JUMP(TopologyKind.SINGLE, true, false, Requirement.FAKETIME,
            "one worker JVM's wall clock 2 leases ahead for a lease, then back"),

    /** Strict, as {@link #HEALTHY}: on semaphores, never more holders than permits. */
    SEMAPHORE_HEALTHY(HEALTHY, Workload.SEMAPHORE),

    /**
     * The frozen worker's permits run out while it sleeps and others take them: more holders than permits for a
     * while, every such breach told (the frozen worker's {@code isHeld()} false by its own clock before the others
     * could enter).
     */
    SEMAPHORE_WORKER_PAUSE(WORKER_PAUSE, Workload.SEMAPHORE),

    /** Every permit forgotten at once: the sections still inside are told at their next renewal round or release. */
    SEMAPHORE_REDIS_RESTART(REDIS_RESTART, Workload.SEMAPHORE),

    SEMAPHORE_WORKER_PARTITION(WORKER_PARTITION, Workload.SEMAPHORE),

    /** Strict, as {@link #HEALTHY}: readers together, a writer always alone. */
    READ_WRITE_HEALTHY(HEALTHY, Workload.READ_WRITE),

    /**
     * A frozen reader or writer loses its lock while it sleeps: a writer enters beside the frozen reader, or anyone
     * beside the frozen writer, told; the fencing store refuses the woken one's stale read or write.
     */
    READ_WRITE_WORKER_PAUSE(WORKER_PAUSE, Workload.READ_WRITE),

    READ_WRITE_REDIS_RESTART(REDIS_RESTART, Workload.READ_WRITE),

    READ_WRITE_WORKER_PARTITION(WORKER_PARTITION, Workload.READ_WRITE),

    /**
     * Redlock's faults on semaphores: a permit counts where a majority let it in, so the nodes killed, restarted
     * empty and frozen may take a permit's majority away; its holder must be told within its validity.
     */
    SEMAPHORE_REDLOCK_FAULTS(REDLOCK_FAULTS, Workload.SEMAPHORE),

    READ_WRITE_REDLOCK_FAULTS(REDLOCK_FAULTS, Workload.READ_WRITE),

    /**
     * Not strict: the clocks drift for the whole run, by libfaketime's rate on every clock of the process (the first
     * worker's at 0.95, the second's at 1.05, the Redis server's at 1.05), and the slow worker is cut off from Redis
     * for 1.5 leases right after one of its long sections entered, so that its lease runs out: by Redis's fast clock
     * first, by its own slow one last. What must hold is what holds without drift: it is told in time.
     */
    CLOCK_DRIFT(TopologyKind.SINGLE, false, true, Requirement.DRIFT,
            "clocks running at 0.95 (a worker) and 1.05 (another worker, and Redis) for the whole run, the slow "
                    + "worker cut off from Redis for longer than the lease"),

    /** Strict: with nothing faulted, a session that stays alive keeps every lock node; nothing excuses a second holder. */
    ZOOKEEPER_HEALTHY(TopologyKind.ZOOKEEPER, true, false,
            "no fault, on ZooKeeper: contention only, long enough to cross many session heartbeats"),

    /**
     * Not strict: the cut-off worker's session expires on the server after the session timeout, its lock nodes go
     * and the others take its locks while its JVM, which cannot hear that, still runs its sections. What must hold is
     * that it is told ({@code isHeld()} false from the moment its connection is suspended, {@code LockLostEvent}
     * {@code SESSION} once Curator declares the session lost) and that the fencing store refuses its late writes.
     */
    ZOOKEEPER_WORKER_PARTITION(TopologyKind.ZOOKEEPER, false, true, Requirement.NAMESPACES,
            "one worker's link to ZooKeeper cut (packets dropped) while it holds locks, for 1.5 session timeouts"),

    /**
     * Not strict: every session expires on the server while nobody can reach it; the sections that were inside
     * when the link was cut run on (told: suspended, then lost) and may overlap the first holders after the heal.
     * Lock calls during the cut fail closed within the connection timeout.
     */
    ZOOKEEPER_PARTITION(TopologyKind.ZOOKEEPER, false, true, Requirement.NAMESPACES,
            "ZooKeeper cut off from every worker at once (packets dropped) for 1.5 session timeouts"),

    /**
     * Strict: ZooKeeper clients ping every third of the session timeout and a session ends only after a whole
     * timeout without a word, which 50-200 ms round trips and TCP's retransmits of 2 % loss never reach.
     */
    ZOOKEEPER_SLOW_LINK(TopologyKind.ZOOKEEPER, true, true, Requirement.NAMESPACES,
            "50-200 ms round trips with jitter and packet loss between every worker and ZooKeeper, for 3 leases"),

    /**
     * Strict: a ZooKeeper lock has no lease counted by a clock. The client's timeouts and the engine's timers
     * (fixed leases) run on the monotonic clock, which a wall-clock step does not move.
     */
    ZOOKEEPER_WORKER_CLOCK_JUMP(TopologyKind.ZOOKEEPER, true, false, Requirement.FAKETIME,
            "one worker JVM's wall clock 2 leases ahead for a lease, then back, on ZooKeeper"),

    /**
     * Strict: the server expires sessions by its monotonic clock; its wall clock only stamps the nodes' creation
     * times. The ensemble's clock does not matter to ZooKeeper, and this run shows it.
     */
    ZOOKEEPER_SERVER_CLOCK_JUMP(TopologyKind.ZOOKEEPER, true, true, Requirement.FAKETIME,
            "the ZooKeeper server's wall clock 2 leases ahead for a lease, then back"),

    /**
     * Not strict: the leader of a 3-server ensemble is killed (SIGKILL) while workers hold and wait for locks, and
     * restarted on its data 1.5 leases later. The followers elect a new leader; clients on the dead one, and for the
     * election every client, are disconnected (suspended: {@code isHeld()} false) and reconnect to a live server. A
     * session that reconnects within its timeout keeps its lock nodes; one that does not expires, and its holder is
     * told.
     */
    ZOOKEEPER_LEADER_KILL(TopologyKind.ZOOKEEPER_ENSEMBLE, false, true, Requirement.SERVER_NAMESPACES,
            "a 3-server ZooKeeper ensemble: its leader killed while locks are held and waited for, restarted after "
                    + "1.5 leases"),

    /**
     * Not strict: a follower is cut off from the other two servers (not from the workers) for 1.5 leases: it loses
     * the leader and stops serving, so that its clients reconnect to the others, as above.
     */
    ZOOKEEPER_FOLLOWER_PARTITION(TopologyKind.ZOOKEEPER_ENSEMBLE, false, true, Requirement.SERVER_NAMESPACES,
            "a 3-server ZooKeeper ensemble: a follower cut off from the other two while locks are held and waited "
                    + "for, for 1.5 leases"),

    /**
     * Not strict: the ensemble split 2/1 with the leader alone on the minority side, for 1.5 leases: the old leader
     * loses its quorum and stops serving, the two followers elect a leader between them and go on; clients on the
     * old leader's side reconnect to the majority or lose their sessions, told.
     */
    ZOOKEEPER_ENSEMBLE_SPLIT(TopologyKind.ZOOKEEPER_ENSEMBLE, false, true, Requirement.SERVER_NAMESPACES,
            "a 3-server ZooKeeper ensemble split 2/1, its leader alone on the minority side, while locks are held "
                    + "and waited for, for 1.5 leases"),

    /** The cut-off worker's session expires: its permits go back, and others take them; it is told. */
    ZOOKEEPER_SEMAPHORE_WORKER_PARTITION(ZOOKEEPER_WORKER_PARTITION, Workload.SEMAPHORE),

    ZOOKEEPER_READ_WRITE_WORKER_PARTITION(ZOOKEEPER_WORKER_PARTITION, Workload.READ_WRITE),

    /**
     * The leader frozen inside a {@code @LeaderOnly} section past its lease: another candidate is granted, and the
     * woken one must not say it leads again (its {@code isLeader()} false from the moment it thaws, revoked
     * {@code LOST}), and the fencing store refuses its stale write.
     */
    ELECTION_WORKER_PAUSE(WORKER_PAUSE, Workload.LEADER),

    /** The leader cut off from Redis: it cannot renew, revokes itself before its lease runs out, and another leads. */
    ELECTION_WORKER_PARTITION(WORKER_PARTITION, Workload.LEADER),

    /**
     * Redis forgets the election's lock: a standing candidate is granted at once, and the old leader is told at its
     * next renewal (two leaders told at once for that while, as a store that forgets allows); the next term is still
     * greater than every earlier one.
     */
    ELECTION_REDIS_RESTART(REDIS_RESTART, Workload.LEADER),

    /** The leader's wall clock 2 leases ahead and back: its lease clock ({@code System.nanoTime()}) does not move. */
    ELECTION_WORKER_CLOCK_JUMP(WORKER_CLOCK_JUMP, Workload.LEADER),

    /**
     * The leader cut off from ZooKeeper: suspended at once ({@code isLeader()} false), its session expires, another
     * candidate is granted.
     */
    ZOOKEEPER_ELECTION_WORKER_PARTITION(ZOOKEEPER_WORKER_PARTITION, Workload.LEADER);

    private final TopologyKind topology;

    private final boolean strict;

    private final boolean touchesRedis;

    private final Requirement requirement;

    private final String description;

    /** The scenario whose fault this one injects: itself, unless it is a shared workload's run of another. */
    private final Scenario fault;

    private final Workload workload;

    Scenario(TopologyKind topology, boolean strict, boolean touchesRedis, String description) {
        this(topology, strict, touchesRedis, Requirement.NONE, description);
    }

    Scenario(TopologyKind topology, boolean strict, boolean touchesRedis, Requirement requirement, String description) {
        this.topology = topology;
        this.strict = strict;
        this.touchesRedis = touchesRedis;
        this.requirement = requirement;
        this.description = description;
        this.fault = this;
        this.workload = Workload.EXCLUSIVE;
    }

    /** The same fault, topology and rules as {@code fault}, on a shared workload. */
    Scenario(Scenario fault, Workload workload) {
        this.topology = fault.topology;
        this.strict = fault.strict;
        this.touchesRedis = fault.touchesRedis;
        this.requirement = fault.requirement;
        this.description = workload.label() + fault.description;
        this.fault = fault;
        this.workload = workload;
    }

    /** The name on the command line and in the report: {@code worker-pause}. */
    String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Scenario of(String id) {
        return Arrays.stream(values())
            .filter((scenario) -> scenario.id().equals(id))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("Unknown scenario '" + id + "'; the scenarios are "
                    + Arrays.stream(values()).map(Scenario::id).toList()));
    }

    /**
     * The short profile, run by the build: a healthy run and the fault that exercises the most (a GC pause), then that
     * fault on read/write locks, whose readers and writers take both of the store's paths (shared and exclusive).
     */
    static List<Scenario> shortProfile() {
        return List.of(HEALTHY, WORKER_PAUSE, READ_WRITE_WORKER_PAUSE);
    }

    static List<Scenario> fullProfile() {
        return List.of(values());
    }

    TopologyKind topology() {
        return this.topology;
    }

    /** Whether the workers lock on ZooKeeper: such a scenario runs once, on Curator, whatever the client option. */
    boolean onZooKeeper() {
        return this.topology == TopologyKind.ZOOKEEPER || this.topology == TopologyKind.ZOOKEEPER_ENSEMBLE;
    }

    /** Whether the scenario injects no fault: the healthy runs. */
    boolean faultFree() {
        return this.fault == HEALTHY || this.fault == ZOOKEEPER_HEALTHY;
    }

    /** The scenario whose fault this one injects, and whose rules it follows: itself but for a shared workload. */
    Scenario fault() {
        return this.fault;
    }

    /** What the workers' sections lock. */
    Workload workload() {
        return this.workload;
    }

    boolean isStrict() {
        return this.strict;
    }

    /**
     * Whether the nemesis acts on Redis processes (signals, their clock) or needs the workers' links to lead to a
     * loopback Redis, which it does only with servers the suite started.
     */
    boolean touchesRedis() {
        return this.touchesRedis;
    }

    /** What the machine must allow for this scenario to run; where it does not, the scenario is skipped. */
    Requirement requirement() {
        return this.requirement;
    }

    String description() {
        return this.description;
    }

    enum TopologyKind {
        SINGLE, SENTINEL, SENTINEL_ACKNOWLEDGED, REDLOCK, CLUSTER, LAB_SENTINEL, ZOOKEEPER, ZOOKEEPER_ENSEMBLE
    }

    /**
     * What a scenario needs of the machine beyond a JDK: nothing, network namespaces with nft (as root) for the
     * workers or for the servers ({@link ServerLab}),
     * libfaketime (for a JVM's clock), libfaketime and a {@code redis-server} that starts under it
     * ({@link FakedRedis}), or both of the latter with namespaces (clock drift with a partition).
     */
    enum Requirement {

        NONE, NAMESPACES, SERVER_NAMESPACES, FAKETIME, FAKETIME_REDIS, DRIFT;

        /** Why the machine cannot run such a scenario, in one sentence; empty when it can. */
        Optional<String> unavailable() {
            return switch (this) {
                case NONE -> Optional.empty();
                case NAMESPACES, SERVER_NAMESPACES -> NetworkLab.unavailable();
                case FAKETIME -> FakeClock.unavailable();
                case FAKETIME_REDIS -> FakedRedis.unavailable();
                case DRIFT -> NetworkLab.unavailable().or(FakedRedis::unavailable);
            };
        }

        /** Whether the workers run in network namespaces of their own ({@link NetworkLab}). */
        boolean needsNamespaces() {
            return this == NAMESPACES || this == DRIFT;
        }

        /** Whether the scenario steps a clock (a {@link FakeClock} of its own). */
        boolean fakesClock() {
            return this == FAKETIME || this == FAKETIME_REDIS;
        }
    }
}
