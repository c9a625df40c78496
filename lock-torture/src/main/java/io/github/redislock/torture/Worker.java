package io.github.redislock.torture;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.LockHandle;
import io.github.redislock.LockRequest;
import io.github.redislock.leader.Leadership;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * A worker JVM: starts {@link WorkerApplication}, says it is ready, waits for the coordinator's go, runs its
 * threads until the coordinator says stop, and exits. Each thread loops: pick a kind of lock and its resources at
 * random, take the lock through the public API, and inside the section enter the witness, read the resource's
 * counter from the fencing store with the lock's fencing token, work a little, write the counter back plus one,
 * leave the witness. After the release it writes a {@link SectionRecord}.
 * <p>
 * Settings, as Spring properties on the command line: {@code torture.worker} (id), {@code torture.witness-host}
 * (127.0.0.1 unless the worker runs in a network namespace of its own), {@code torture.witness-port},
 * {@code torture.threads}, {@code torture.resources}, {@code torture.kinds}, {@code torture.wait-time},
 * {@code torture.fixed-lease}, {@code torture.work-millis}, {@code torture.workload} ({@link Workload}, exclusive
 * unless given); and the starter's own {@code spring.data.redis.*}
 * and {@code redis-lock.*}. In the leader election workload one thread runs {@code @LeaderOnly} sections while the
 * worker leads, and a {@link LeaderWatch} records its terms.
 */
public final class Worker {

    private final String id;

    private final Environment environment;

    private final String witnessHost;

    private final int witnessPort;

    /** The witness's time as this JVM carries it on, for the records. */
    private final WitnessClock clock = new WitnessClock();

    private volatile boolean stopped;

    private volatile boolean failed;

    private Worker(ConfigurableApplicationContext context) {
        this.environment = context.getEnvironment();
        this.id = this.environment.getRequiredProperty("torture.worker");
        this.witnessHost = this.environment.getProperty("torture.witness-host", "127.0.0.1");
        this.witnessPort = this.environment.getRequiredProperty("torture.witness-port", Integer.class);
    }

    public static void main(String[] args) throws Exception {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(WorkerApplication.class)
            .web(WebApplicationType.NONE)
            .run(args);
        Worker worker = new Worker(context);
        try {
            worker.run(context);
        }
        finally {
            context.close();
        }
        // A thread that lost the witness wrote records no more: the run cannot be judged, and says so.
        System.exit(worker.failed ? 1 : 0);
    }

    private void run(ConfigurableApplicationContext context) throws InterruptedException {
        try (Witness control = Witness.connect(this.witnessHost, this.witnessPort)) {
            this.clock.anchor(control);
            Thread anchoring = new Thread(this::keepAnchoring, this.id + "-witness-clock");
            anchoring.setDaemon(true);
            anchoring.start();
            WorkerApplication.LostLocks lost = context.getBean(WorkerApplication.LostLocks.class);
            lost.setListener((event) -> {
                synchronized (control) {
                    control.command("HINCRBY", Witness.LOST_EVENTS, this.id + "|" + event.getDetection(), "1");
                }
            });
            warmUp(context);
            boolean leader = Workload.of(this.environment.getProperty("torture.workload", Workload.EXCLUSIVE.id()))
                    == Workload.LEADER;
            LeaderWatch watch = leader
                    ? new LeaderWatch(this.id, context, this.clock, this.witnessHost, this.witnessPort) : null;
            Thread watching = (watch != null) ? new Thread(watch, this.id + "-leader-watch") : null;
            if (watching != null) {
                watching.start();
            }
            synchronized (control) {
                control.command("SADD", "ready", this.id);
            }
            awaitFlag(control, "go");
            // The leader runs its sections on one thread, one after another: a leader's work, not contention.
            int threads = leader ? 1 : this.environment.getRequiredProperty("torture.threads", Integer.class);
            List<Thread> running = new ArrayList<>();
            for (int i = 0; i < threads + (leader ? 0 : 1); i++) {
                // The extra thread runs the long sections only.
                Loop loop = new Loop(context, lost, i, i == threads);
                Thread thread = new Thread(loop, this.id + "-t" + i);
                thread.start();
                running.add(thread);
            }
            awaitFlag(control, "stop");
            this.stopped = true;
            for (Thread thread : running) {
                thread.join();
            }
            if (watch != null) {
                watch.stop();
                watching.join();
            }
        }
    }

    /**
     * Takes and releases a key of this worker's own a few times, by each path the loops use, before saying it is
     * ready: the first lock calls of a JVM open the Redis connections and load the scripts, which must not count
     * against the first contended waits. The template goes first, with a long wait: on a loaded machine the first
     * call (five connections for Redlock) can outlast the annotation's configured wait. A call that fails here
     * (on a starved machine a cold JVM's first connection can take longer than the 2 s command timeout) is made
     * again until a minute has passed: nothing before {@code ready} is judged.
     */
    private void warmUp(ConfigurableApplicationContext context) throws InterruptedException {
        DistributedLockTemplate template = context.getBean(DistributedLockTemplate.class);
        WorkerApplication.AnnotatedSections annotated = context.getBean(WorkerApplication.AnnotatedSections.class);
        String key = "warm-up:" + this.id;
        Duration wait = Duration.ofSeconds(30);
        // The long wait first: the JVM's first call opens the connections (five of them on Redlock), which on a
        // loaded machine can outlast the annotation's configured wait.
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        for (int done = 0; done < 3;) {
            try {
                template.execute(LockRequest.of(key, wait, Duration.ofSeconds(2)), () -> null);
                template.execute(LockRequest.of(List.of(key, key + ":second"), wait, null), () -> null);
                annotated.renewed(key, (lock) -> {
                });
                done++;
            }
            catch (RuntimeException ex) {
                if (System.nanoTime() - deadline > 0) {
                    throw ex;
                }
                // Not yet connected: the machine is slow, not the lock under test.
                Thread.sleep(100);
            }
        }
    }

    private static void awaitFlag(Witness control, String flag) throws InterruptedException {
        while (true) {
            synchronized (control) {
                if (control.command("GET", flag) != null) {
                    return;
                }
            }
            // Polling another process's flag: there is nothing to block on across JVMs but the witness itself.
            Thread.sleep(20);
        }
    }

    /** One thread's loop, with its own witness connection and random stream. */
    private final class Loop implements Runnable {

        private final DistributedLockTemplate template;

        private final WorkerApplication.AnnotatedSections annotated;

        private final WorkerApplication.ReentrantSections reentrant;

        private final WorkerApplication.LostLocks lost;

        private final String thread;

        private final SplittableRandom random;

        private final List<SectionKind> kinds;

        private final int resources;

        private final Duration waitTime;

        private final Duration fixedLease;

        private final int workMillis;

        private final Duration lease;

        private final Workload workload;

        private final SharedLocking shared;

        /** The leader election workload's {@code @LeaderOnly} sections; null in the others. */
        private final WorkerApplication.@Nullable LeaderSections leaderSections;

        private final @Nullable Leadership leadership;

        private long sequence;

        Loop(ConfigurableApplicationContext context, WorkerApplication.LostLocks lost, int index, boolean slow) {
            this.template = context.getBean(DistributedLockTemplate.class);
            this.annotated = context.getBean(WorkerApplication.AnnotatedSections.class);
            this.reentrant = context.getBean(WorkerApplication.ReentrantSections.class);
            this.lost = lost;
            this.thread = "t" + index;
            this.random = new SplittableRandom();
            Environment env = Worker.this.environment;
            this.kinds = slow ? List.of(SectionKind.LONG)
                    : List.of(env.getRequiredProperty("torture.kinds", SectionKind[].class));
            this.resources = env.getRequiredProperty("torture.resources", Integer.class);
            this.waitTime = env.getRequiredProperty("torture.wait-time", Duration.class);
            this.fixedLease = env.getRequiredProperty("torture.fixed-lease", Duration.class);
            this.workMillis = env.getRequiredProperty("torture.work-millis", Integer.class);
            this.lease = env.getRequiredProperty("redis-lock.lease-time", Duration.class);
            this.workload = Workload.of(env.getProperty("torture.workload", Workload.EXCLUSIVE.id()));
            this.shared = new SharedLocking(context, this.waitTime, this.fixedLease, this.lease.multipliedBy(10));
            this.leaderSections = context.getBeanProvider(WorkerApplication.LeaderSections.class).getIfAvailable();
            this.leadership = context.getBeanProvider(Leadership.class).getIfAvailable();
        }

        @Override
        public void run() {
            try (Witness witness = Witness.connect(Worker.this.witnessHost, Worker.this.witnessPort)) {
                while (!Worker.this.stopped) {
                    attempt(witness);
                }
            }
            catch (RuntimeException ex) {
                Worker.this.failed = true;
                throw ex;
            }
        }

        private void attempt(Witness witness) {
            SectionKind kind = this.kinds.get(this.random.nextInt(this.kinds.size()));
            if (kind == SectionKind.LEADER && !awaitLeadership()) {
                return;
            }
            List<String> resources = pickResources(kind);
            @Nullable Share share = this.workload.pick(kind, this.random);
            String section = Worker.this.id + ":" + this.thread + ":" + (++this.sequence);
            Body body = new Body(witness, resources, kind, (share != null) ? share.member(section) : section, share);
            long waitStart = Worker.this.nowMicros();
            String exception = "-";
            try {
                if (share != null) {
                    this.shared.run(kind, resources, share, body);
                }
                else {
                    runExclusive(kind, resources, body);
                }
            }
            catch (Witness.WitnessException ex) {
                throw ex;
            }
            catch (RuntimeException ex) {
                exception = ex.getClass().getSimpleName();
                witness.command("HINCRBY", Witness.EXCEPTIONS, Worker.this.id + "|" + exception, "1");
            }
            LockHandle lock = body.lock;
            if (kind == SectionKind.LEADER && lock == null && exception.equals("-")) {
                // Skipped: the term ended between the wait and the call. Not a lock call, nothing to record.
                return;
            }
            boolean told = lock != null
                    && (!body.heldAtEnd || lock.isLost() || this.lost.contains(lock));
            SectionRecord record = new SectionRecord(Worker.this.id, body.member, kind, resources,
                    (lock != null) ? lock.fencingToken() : -1, waitStart, body.enter,
                    (body.enter > 0) ? body.leave : Worker.this.nowMicros(), body.others,
                    body.read, body.write, told, body.heldUntil, exception);
            witness.command("RPUSH", Witness.SECTIONS, record.format());
        }

        private void runExclusive(SectionKind kind, List<String> resources, Body body) {
            switch (kind) {
                case RENEWED -> this.annotated.renewed(resources.get(0), body);
                case REENTRANT -> this.reentrant.outer(resources.get(0), body);
                case FIXED -> this.template.execute(LockRequest.of(resources.get(0), this.waitTime,
                        this.fixedLease), () -> body.runCurrent());
                case MULTI_KEY -> this.template.execute(LockRequest.of(resources, this.waitTime, null),
                        () -> body.runCurrent());
                // Waits as long as the other workers' long sections may take, and then some.
                case LONG -> this.template.execute(LockRequest.of(resources, this.lease.multipliedBy(10), null),
                        () -> body.runCurrent());
                case LEADER -> Objects.requireNonNull(this.leaderSections, "no election").lead(body);
            }
        }

        /** Whether this worker leads, waiting a while for it: a candidate that stands by makes no calls. */
        private boolean awaitLeadership() {
            try {
                return Objects.requireNonNull(this.leadership, "no election").awaitLeadership(Duration.ofMillis(200));
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted", ex);
            }
        }

        private List<String> pickResources(SectionKind kind) {
            if (kind == SectionKind.LONG) {
                return List.of(SectionKind.SLOW_RESOURCE);
            }
            if (kind == SectionKind.LEADER) {
                return List.of(SectionKind.LEADER_RESOURCE);
            }
            int first = this.random.nextInt(this.resources);
            if (kind != SectionKind.MULTI_KEY) {
                return List.of("r" + first);
            }
            int second = (first + 1 + this.random.nextInt(this.resources - 1)) % this.resources;
            // In the order the request takes them (sorted): the handle's fencing token is the first one's.
            return java.util.stream.Stream.of("r" + first, "r" + second).sorted().toList();
        }

        /** The critical section, and what it saw. */
        private final class Body implements WorkerApplication.Section {

            private final Witness witness;

            private final List<String> resources;

            private final SectionKind kind;

            private final String member;

            /** What the section holds in a shared workload; null for a plain lock. */
            private final @Nullable Share share;

            private LockHandle lock;

            private long enter;

            private long leave;

            private List<String> others = List.of();

            private char read = '-';

            private char write = '-';

            private boolean heldAtEnd;

            /** When an {@code isHeld()} last answered true (witness microseconds); 0: never. */
            private long heldUntil;

            Body(Witness witness, List<String> resources, SectionKind kind, String member, @Nullable Share share) {
                this.witness = witness;
                this.resources = resources;
                this.kind = kind;
                this.member = member;
                this.share = share;
            }

            Object runCurrent() {
                run(LockContext.current().orElseThrow());
                return null;
            }

            @Override
            public void run(LockHandle lock) {
                this.lock = lock;
                String worker = Worker.this.id;
                askHeld();
                Witness.Entry entry = this.witness.enter(this.resources, this.member);
                this.enter = entry.micros();
                this.others = entry.others();
                if (this.share != null && (this.share.isPermit() || this.share.isReader())) {
                    sharedWork(lock);
                    return;
                }
                String resource = this.resources.get(0);
                String value = this.witness.fencedRead(resource, lock.fencingToken(), worker);
                this.read = (value != null) ? 'V' : 'R';
                work();
                if (value != null) {
                    long written = this.witness.fencedWrite(resource, lock.fencingToken(), worker, value);
                    this.write = (written == 0) ? 'R' : (written == 2) ? 'L' : 'A';
                }
                this.heldAtEnd = askHeld();
                this.leave = this.witness.leave(this.resources, this.member);
            }

            /**
             * A permit's or a reader's work: a reader reads the counter, fenced against writers, when it enters and
             * again before it leaves, as a reader checks that what it read still stands before acting on it (a reader
             * that lost its lock to a writer while it worked is refused then); a permit protects no value of its own
             * and only works.
             */
            private void sharedWork(LockHandle lock) {
                boolean reader = this.share != null && this.share.isReader();
                boolean refused = reader && look(lock) == null;
                work();
                refused |= reader && look(lock) == null;
                this.read = !reader ? '-' : refused ? 'R' : 'V';
                this.heldAtEnd = askHeld();
                this.leave = this.witness.leave(this.resources, this.member);
            }

            private @Nullable String look(LockHandle lock) {
                return this.witness.fencedLook(this.resources.get(0), lock.fencingToken(), Worker.this.id);
            }

            /**
             * The protected work: long enough that a pause of the process lands inside sections. It asks whether
             * the lock is held every 5 ms meanwhile, as a careful application checks before each step, so that
             * the record says until when the library told this section it held the lock.
             */
            private void work() {
                long millis = (this.kind == SectionKind.LONG) ? Loop.this.lease.toMillis() * 3 / 2
                        : 1 + Loop.this.random.nextInt(Loop.this.workMillis);
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
                try {
                    for (long left = millis; left > 0; left = TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())) {
                        Thread.sleep(Math.min(left, 5));
                        askHeld();
                    }
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }

            /**
             * {@code isHeld()}, remembering when it last answered true: the moment the answer was back, the
             * latest moment this section could have acted on it.
             */
            private boolean askHeld() {
                boolean held = this.lock.isHeld();
                if (held) {
                    this.heldUntil = Worker.this.nowMicros();
                }
                return held;
            }
        }
    }

    /**
     * Anchors {@link #clock} again every {@value WitnessClock#INTERVAL_MILLIS} ms over a connection of its own, until
     * the worker stops: the interval is the point, not a wait for something.
     */
    private void keepAnchoring() {
        try (Witness witness = Witness.connect(this.witnessHost, this.witnessPort)) {
            while (!this.stopped) {
                Thread.sleep(WitnessClock.INTERVAL_MILLIS);
                this.clock.anchor(witness);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (RuntimeException ex) {
            // A worker that lost the witness cannot be judged, as when a loop loses it.
            this.failed = true;
            throw ex;
        }
    }

    /** The witness's clock as this JVM carries it on (see {@link WitnessClock}). */
    private long nowMicros() {
        return this.clock.nowMicros();
    }
}
