package io.github.redislock.docs;

import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockContext;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.OnLockFailure;
import io.github.redislock.support.LockContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The sample of {@code docs/scheduled-jobs.md}: {@link ReportJob#report} is the page's code. Called through the
 * proxy (as the scheduler calls it; scheduling itself is not switched on here, the test calls the job), it runs
 * under its lock and, ending well within {@code holdAtLeast}, leaves the key kept in Redis, so the next call
 * (another instance's scheduler firing late) skips. Called on the object itself, without the proxy,
 * {@code LockContext.assertHeld()} fails. {@code ScheduledJobOnSeveralInstancesTest} runs the job on three
 * instances' schedulers.
 */
class ScheduledJobSnippetTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.shared();

    @BeforeEach
    void reset() {
        redis.flushAll();
    }

    @Test
    void theJobRunsUnderItsLockAndItsKeyIsKeptForHoldAtLeast() {
        LockContexts.runner(redis).withBean(ReportJob.class).run((context) -> {
            ReportJob job = context.getBean(ReportJob.class);

            job.report();
            job.report();

            assertThat(job.runs()).isEqualTo(1);
            assertThat(String.valueOf(redis.command("GET", "job:report"))).startsWith("~kept:");
            assertThat(((Number) redis.command("PTTL", "job:report")).longValue()).isPositive();
        });
    }

    @Test
    void calledWithoutTheProxyTheJobFailsItsAssertion() {
        ReportJob unproxied = new ReportJob();
        assertThatThrownBy(unproxied::report).isInstanceOf(IllegalStateException.class);
        assertThat(unproxied.runs()).isZero();
    }

    /** The page's job. */
    static class ReportJob {

        private final AtomicInteger runs = new AtomicInteger();

        @Scheduled(fixedRate = 60_000)
        @DistributedLock(key = "job:report", onFailure = OnLockFailure.SKIP, holdAtLeast = "50s")
        public void report() {
            LockContext.assertHeld();   // optional: fails if the job ever runs without its lock
            this.runs.incrementAndGet();
        }

        /** How often the job ran (a method, since a field read on the proxy would not reach the target). */
        public int runs() {
            return this.runs.get();
        }
    }
}
