package io.github.redislock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import io.github.redislock.LockLostEvent;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.testsupport.StallMeter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;
import static org.awaitility.Awaitility.await;

/**
 * A ShedLock application as its users write it ({@code @EnableSchedulerLock}, a {@code @Scheduled} job with
 * {@code @SchedulerLock(lockAtLeastFor = "1s")}, and no ShedLock provider bean: this module's auto-configuration
 * brings it), started three times, one instance after another, on the store a subclass configures by properties
 * alone (one Redis, Redlock, ZooKeeper), as an application chooses its store. Each instance fires the 20 ms job
 * every 100 ms; the lock lets it run once per second across the three.
 * <p>
 * The judge does not trust the library: every firing of every instance's scheduler is recorded around the whole
 * locked call (when it fired, when it returned, and whether and when the job body ran), in a record kept by the
 * test, and the runs are judged from it alone: no two runs overlap; no run starts within lockAtLeastFor of the
 * firing of the run before it (whose lock was taken after that firing, and kept a second from then); and no
 * firing was skipped unless some run was inside its locked call or within lockAtLeastFor after it returned, so
 * the job is never held back for nothing. Judged run by run, so a loaded machine's stalls decide nothing; where a
 * bound is a timer's (a store that keeps a lock for lockAtLeastFor by a timer of this JVM, as ZooKeeper's does), the
 * time this JVM could run no thread ({@link StallMeter}) is added to it, since the timer could not fire then.
 */
abstract class ShedLockApplicationSuite {

    private static final Duration LOCK_AT_LEAST_FOR = Duration.ofSeconds(1);

    private static final int INSTANCES = 3;

    /** Every firing of every instance's scheduler. */
    private static final Queue<Firing> firings = new ConcurrentLinkedQueue<>();

    /** When the job body began and ended on this thread's current firing ({@link System#nanoTime()}). */
    private static final ThreadLocal<long[]> run = new ThreadLocal<>();

    /**
     * The properties that put an instance's locks in the store under test, the same for every instance of the test
     * and apart from any earlier test's (a key prefix or base path of its own).
     */
    protected abstract List<String> storeProperties();

    /** How the engine of an instance on the store under test describes itself ({@code LockEngine#describe}). */
    protected abstract String storeDescription();

    /** When this JVM could run no thread, during the test. */
    private StallMeter stalls;

    @BeforeEach
    void reset() {
        firings.clear();
        this.stalls = StallMeter.start();
    }

    @AfterEach
    void stopMeter() {
        this.stalls.close();
    }

    @Test
    void threeInstancesRunTheJobOncePerLockAtLeastForWithNoProviderBeanOfTheirOwn() {
        List<ConfigurableApplicationContext> instances = new ArrayList<>();
        try {
            for (int i = 0; i < INSTANCES; i++) {
                instances.add(start(i));
                int started = i;
                // Started apart: the next instance comes up once this one has fired the job at least once.
                await().atMost(Duration.ofSeconds(30)).until(() -> firings.stream()
                    .anyMatch((firing) -> firing.instance() == started));
            }
            long allUp = System.nanoTime();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> runs().stream().filter((firing) -> firing.startedAt() > allUp).count() >= 4);
            assertThat(instances).allSatisfy((context) -> {
                assertThat(context.getBean(net.javacrumbs.shedlock.core.LockProvider.class))
                    .isInstanceOf(DistributedLockShedLockProvider.class);
                assertThat(context.getBean(LockEngine.class).describe()).startsWith(storeDescription());
            });
        }
        finally {
            // Every scheduler stops (letting a firing under way end) before any instance closes: the runs judged
            // are those of running instances. A stopping instance gives up what it keeps for lockAtLeastFor with
            // its ZooKeeper session (docs/zookeeper.md), which the judge below would take for the store's fault.
            instances.forEach((context) -> context.getBean(ThreadPoolTaskScheduler.class).shutdown());
            instances.forEach(ConfigurableApplicationContext::close);
        }
        assertThat(overlappingRuns()).as("runs inside the job at the same time").isEmpty();
        assertThat(runsStartedWithinLockAtLeastFor()).as("runs that started within lockAtLeastFor of the firing of "
                + "the run before").isEmpty();
        assertThat(skippedForNothing()).as("firings skipped although no run was inside its locked call or within "
                + "lockAtLeastFor after it").isEmpty();
        assertThat(firings).filteredOn((firing) -> !firing.ran()).as("firings skipped").isNotEmpty();
    }

    /**
     * A ShedLock lock whose lockAtMostFor ran out before its job ended (the store no longer holds it) is told to the
     * application as every lost lock is: one {@link LockLostEvent}, naming the lock, at the job's unlock.
     */
    @Test
    void aShedLockLockThatRanOutIsALockLostEventOfTheApplication() {
        try (ConfigurableApplicationContext instance = start(0)) {
            LockEngine engine = instance.getBean(LockEngine.class);
            // Connections open, as in an application that has run a while: the lock's take costs no more than any.
            engine.acquire(LockRequest.of("warm-up", Duration.ZERO, null)).close();
            SimpleLock lock = instance.getBean(net.javacrumbs.shedlock.core.LockProvider.class)
                .lock(new LockConfiguration(Instant.now(), "nightly-export", Duration.ofSeconds(1), Duration.ZERO))
                .orElseThrow();
            await().atMost(Duration.ofSeconds(10)).until(() -> !engine.inspect("nightly-export").held());
            lock.unlock();
            LostLocks lost = instance.getBean(LostLocks.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> !lost.events.isEmpty());
            // The store's key: the key prefix, or the base path, before the lock's name.
            assertThat(lost.events).singleElement().extracting(LockLostEvent::getKey, STRING).endsWith("nightly-export");
        }
    }

    private ConfigurableApplicationContext start(int instance) {
        List<String> properties = new ArrayList<>(storeProperties());
        properties.addAll(List.of("spring.application.name=report-" + instance, "instance=" + instance));
        return new SpringApplicationBuilder(ReportApplication.class).web(WebApplicationType.NONE)
            .properties(properties.toArray(String[]::new))
            .run();
    }

    /** The firings whose job ran, in the order they began. */
    private static List<Firing> runs() {
        return firings.stream().filter(Firing::ran).sorted(Comparator.comparingLong(Firing::startedAt)).toList();
    }

    private static List<String> overlappingRuns() {
        List<Firing> runs = runs();
        List<String> overlapping = new ArrayList<>();
        for (int i = 1; i < runs.size(); i++) {
            if (runs.get(i).startedAt() < runs.get(i - 1).endedAt()) {
                overlapping.add(runs.get(i - 1) + " and " + runs.get(i));
            }
        }
        return overlapping;
    }

    private static List<String> runsStartedWithinLockAtLeastFor() {
        List<Firing> runs = runs();
        List<String> early = new ArrayList<>();
        for (int i = 1; i < runs.size(); i++) {
            if (runs.get(i).startedAt() - runs.get(i - 1).firedAt() < LOCK_AT_LEAST_FOR.toNanos()) {
                early.add(runs.get(i) + " after " + runs.get(i - 1));
            }
        }
        return early;
    }

    private List<String> skippedForNothing() {
        List<Firing> runs = runs();
        return firings.stream()
            .filter((firing) -> !firing.ran())
            .filter((skipped) -> runs.stream().noneMatch((run) -> run.firedAt() <= skipped.returnedAt()
                    && skipped.firedAt() <= run.returnedAt() + LOCK_AT_LEAST_FOR.toNanos()
                            + this.stalls.stalledWithin(run.returnedAt(), skipped.firedAt()).toNanos()))
            .map((skipped) -> skipped + ", the run before it: " + runs.stream()
                .filter((run) -> run.firedAt() <= skipped.firedAt())
                .reduce((earlier, later) -> later)
                .map(Firing::toString)
                .orElse("none"))
            .toList();
    }

    /**
     * One firing of an instance's scheduler ({@link System#nanoTime()} throughout): when it fired and returned, and
     * when the job body began and ended if it ran (0 otherwise).
     */
    record Firing(int instance, long firedAt, long returnedAt, long startedAt, long endedAt) {

        boolean ran() {
            return this.startedAt != 0;
        }
    }

    /** The application: its job, ShedLock's annotations, nothing else of ShedLock's. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    @Import(DailyReport.class)
    static class ReportApplication {

        /** The application's lost locks, as its listeners hear them. */
        @Bean
        LostLocks lostLocks() {
            return new LostLocks();
        }

        /** Spring's scheduler, recording each firing around the whole locked call (the test's instrument). */
        @Bean
        ThreadPoolTaskScheduler taskScheduler(@Value("${instance}") int instance) {
            return new RecordingScheduler(instance);
        }
    }

    static final class LostLocks implements ApplicationListener<LockLostEvent> {

        final Queue<LockLostEvent> events = new ConcurrentLinkedQueue<>();

        @Override
        public void onApplicationEvent(LockLostEvent event) {
            this.events.add(event);
        }
    }

    static class DailyReport {

        @Scheduled(fixedRate = 100)
        @SchedulerLock(name = "daily-report", lockAtLeastFor = "1s", lockAtMostFor = "30s")
        public void report() throws InterruptedException {
            long startedAt = System.nanoTime();
            // The job's 20 ms of work (what it does, not a synchronisation).
            Thread.sleep(20);
            run.set(new long[] { startedAt, System.nanoTime() });
        }
    }

    static final class RecordingScheduler extends ThreadPoolTaskScheduler {

        private final int instance;

        RecordingScheduler(int instance) {
            this.instance = instance;
            setWaitForTasksToCompleteOnShutdown(true);
            setAwaitTerminationSeconds(30);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
            return super.scheduleAtFixedRate(record(task), period);
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
            return super.scheduleAtFixedRate(record(task), startTime, period);
        }

        private Runnable record(Runnable task) {
            return () -> {
                long firedAt = System.nanoTime();
                run.remove();
                try {
                    task.run();
                }
                finally {
                    long[] ran = run.get();
                    firings.add(new Firing(this.instance, firedAt, System.nanoTime(), (ran != null) ? ran[0] : 0,
                            (ran != null) ? ran[1] : 0));
                }
            };
        }
    }
}
