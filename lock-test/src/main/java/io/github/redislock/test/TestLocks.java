package io.github.redislock.test;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockContext;
import io.github.redislock.OnLeaseLost;

/**
 * For unit tests that call a locked job directly, without the application context or its proxy: runs it under a
 * real lock (an {@link InProcessLockProvider} of its own), so that {@link LockContext#assertHeld()} in the job
 * passes, as it does when the job is called through {@code @DistributedLock}. The counterpart of ShedLock's
 * {@code LockAssert.TestHelper.makeAllAssertsPass(true)}, except that the assertion is not switched off: a job
 * that checks it still fails when called without a lock.
 *
 * <pre>{@code
 * @Test
 * void reportCountsYesterdaysOrders() {
 *     TestLocks.runUnder("job:report", reportJob::report);
 *     assertThat(reports.latest().orders()).isEqualTo(3);
 * }
 * }</pre>
 */
public final class TestLocks {

    private TestLocks() {
    }

    /** Runs the job on the calling thread under an in-process lock on the key, and releases it afterwards. */
    public static void runUnder(String key, Runnable job) {
        withTemplate((template) -> {
            template.run(key, Duration.ZERO, null, job);
            return null;
        });
    }

    /** {@link #runUnder} for a job that returns a value. */
    public static <T> T callUnder(String key, Supplier<T> job) {
        return withTemplate((template) -> template.execute(key, Duration.ZERO, null, job));
    }

    private static <T> T withTemplate(Function<DistributedLockTemplate, T> call) {
        // A provider per call, closed after it (its engine's renewal thread with it): calls in parallel tests
        // never wait for each other.
        try (InProcessLockProvider locks = new InProcessLockProvider()) {
            return call.apply(new DistributedLockTemplate(locks, Duration.ZERO, OnLeaseLost.THROW));
        }
    }
}
