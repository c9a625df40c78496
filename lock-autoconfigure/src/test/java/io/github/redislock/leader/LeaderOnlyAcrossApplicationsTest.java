package io.github.redislock.leader;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.redislock.LockContext;
import io.github.redislock.annotation.LeaderOnly;
import io.github.redislock.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.redislock.support.LockContexts;
import io.github.redislock.support.OverlapLog;
import io.github.redislock.testsupport.RedisServerExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three applications on one Redis stand in the election "nightly" ({@code redis-lock.leader.name}); each calls its
 * {@code @LeaderOnly} job every 2 ms, as a scheduler would. The judge does not trust the library: every run of the
 * job, on any instance, enters an {@link OverlapLog} kept in the test and logs its instance and its term
 * ({@code LockContext.current().fencingToken()}); runs of two instances never overlap, only one instance runs at a
 * time, and terms grow from one leader to the next, when the leader's application closes or it yields.
 */
class LeaderOnlyAcrossApplicationsTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    private static final int INSTANCES = 3;

    /** Runs of the job that make a stretch of about a second. */
    private static final int RUNS = 300;

    private static final Duration LONG_WAIT = Duration.ofSeconds(60);

    private final OverlapLog overlaps = new OverlapLog();

    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void reset() {
        this.runs.clear();
    }

    @Test
    void onlyTheLeaderRunsTheJobAndItsRunsNeverOverlap() {
        threeApplications((applications) -> {
            await().atMost(LONG_WAIT).until(() -> this.runs.size() >= RUNS);
            Leadership leader = leaderAmong(applications);
            assertThat(this.runs).extracting(Run::instance).containsOnly(instanceOf(applications, leader));
            assertThat(this.runs).extracting(Run::term).containsOnly(leader.term().getAsLong());
            assertThat(this.overlaps.maxConcurrent()).isEqualTo(1);
        });
    }

    @Test
    void closingTheLeadersApplicationHandsTheJobOverWithALargerTerm() {
        threeApplications((applications) -> {
            await().atMost(LONG_WAIT).until(() -> this.runs.size() >= RUNS);
            Leadership first = leaderAmong(applications);
            String firstInstance = instanceOf(applications, first);
            long firstTerm = first.term().getAsLong();
            contextOf(applications, first).getSourceApplicationContext(ConfigurableApplicationContext.class).close();
            await().atMost(LONG_WAIT).until(() -> this.runs.stream().anyMatch((run) -> run.term() > firstTerm));
            assertHandedOverOnce(firstInstance, firstTerm);
        });
    }

    @Test
    void aYieldingLeaderHandsTheJobOverWithALargerTerm() {
        threeApplications((applications) -> {
            await().atMost(LONG_WAIT).until(() -> this.runs.size() >= RUNS);
            Leadership first = leaderAmong(applications);
            String firstInstance = instanceOf(applications, first);
            long firstTerm = first.term().getAsLong();
            first.yieldLeadership();
            await().atMost(LONG_WAIT).until(() -> this.runs.stream().anyMatch((run) -> run.term() > firstTerm));
            assertHandedOverOnce(firstInstance, firstTerm);
        });
    }

    /** The first leader's runs, then another's with a larger term, never overlapping. */
    private void assertHandedOverOnce(String firstInstance, long firstTerm) {
        List<Run> inOrder = List.copyOf(this.runs);
        int switched = 0;
        for (int i = 1; i < inOrder.size(); i++) {
            assertThat(inOrder.get(i).term()).as("term of run %d", i).isGreaterThanOrEqualTo(inOrder.get(i - 1).term());
            if (!inOrder.get(i).instance().equals(inOrder.get(i - 1).instance())) {
                switched++;
            }
        }
        assertThat(inOrder.get(0).instance()).isEqualTo(firstInstance);
        assertThat(inOrder.get(0).term()).isEqualTo(firstTerm);
        assertThat(switched).as("hand-overs").isEqualTo(1);
        assertThat(this.overlaps.overlappingPairs()).isZero();
        assertThat(this.overlaps.maxConcurrent()).isEqualTo(1);
    }

    /** Three applications, each calling its job every 2 ms on a thread of the test's until the check ends. */
    private void threeApplications(Consumer<List<AssertableApplicationContext>> check) {
        ApplicationContextRunner runner = LockContexts.runner(redis)
            .withConfiguration(AutoConfigurations.of(LeaderElectionAutoConfiguration.class))
            .withPropertyValues("redis-lock.leader.name=nightly", "redis-lock.leader.yield-pause=1m");
        List<AssertableApplicationContext> applications = new ArrayList<>();
        List<Thread> callers = new ArrayList<>();
        runner.withBean(NightlyJob.class, () -> new NightlyJob("instance-0", this.overlaps, this.runs)).run((first) ->
            runner.withBean(NightlyJob.class, () -> new NightlyJob("instance-1", this.overlaps, this.runs)).run((second) ->
                runner.withBean(NightlyJob.class, () -> new NightlyJob("instance-2", this.overlaps, this.runs)).run((third) -> {
                    applications.addAll(List.of(first, second, third));
                    try {
                        for (AssertableApplicationContext application : applications) {
                            callers.add(caller(application.getBean(NightlyJob.class)));
                        }
                        check.accept(applications);
                    }
                    finally {
                        callers.forEach(Thread::interrupt);
                        for (Thread caller : callers) {
                            caller.join(TimeUnit.SECONDS.toMillis(10));
                        }
                    }
                })));
    }

    private static Thread caller(NightlyJob job) {
        Thread caller = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                job.run();
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }, "caller-" + job.instance());
        caller.setDaemon(true);
        caller.start();
        return caller;
    }

    private static Leadership leaderAmong(List<AssertableApplicationContext> applications) {
        return contextOf(applications, null).getBean(Leadership.class);
    }

    /** The application whose leadership is the given one, or ({@code null}) the one that leads now. */
    private static AssertableApplicationContext contextOf(List<AssertableApplicationContext> applications,
            Leadership leadership) {
        return applications.stream().filter((application) -> {
            Leadership own = application.getBean(Leadership.class);
            return (leadership != null) ? own == leadership : own.isLeader();
        }).findFirst().orElseThrow();
    }

    private static String instanceOf(List<AssertableApplicationContext> applications, Leadership leadership) {
        return contextOf(applications, leadership).getBean(NightlyJob.class).instance();
    }

    record Run(String instance, long term) {
    }

    /** The job: runs only on the leader, and logs itself in the witness. */
    public static class NightlyJob {

        private final String instance;

        private final OverlapLog overlaps;

        private final ConcurrentLinkedQueue<Run> runs;

        NightlyJob(String instance, OverlapLog overlaps, ConcurrentLinkedQueue<Run> runs) {
            this.instance = instance;
            this.overlaps = overlaps;
            this.runs = runs;
        }

        /** Through the proxy: the instance's name. */
        public String instance() {
            return this.instance;
        }

        @LeaderOnly
        public void run() {
            long entered = this.overlaps.enter();
            this.runs.add(new Run(this.instance, LockContext.current().orElseThrow().fencingToken()));
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            this.overlaps.exit(entered);
        }
    }
}
