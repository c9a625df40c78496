package io.github.redislock.benchmarks.uncontended;

import java.time.Duration;
import java.util.function.Supplier;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.benchmarks.BenchRedis;
import io.github.redislock.benchmarks.clients.LockedService;
import io.github.redislock.benchmarks.clients.SpringContexts;
import io.github.redislock.benchmarks.clients.SuspendingCalls;
import io.github.redislock.benchmarks.clients.SuspendingLockedService;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.context.ConfigurableApplicationContext;

/**
 * One uncontended lock cycle (acquire, empty body, release) through redis-lock: the annotated method, as
 * users write it, and the programmatic template; each with a fixed lease and with the renewed lease; and the
 * annotated method as a Kotlin {@code suspend fun}. A rare
 * collision of two threads on one random key counts as a cycle that did not get the lock.
 */
@State(Scope.Benchmark)
public class OursBenchmark {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private static final Supplier<Boolean> EMPTY_BODY = () -> Boolean.TRUE;

    private ConfigurableApplicationContext context;

    private LockedService service;

    private SuspendingLockedService suspending;

    private DistributedLockTemplate template;

    @Setup(Level.Trial)
    public void start() {
        BenchRedis.flushAll();
        this.context = SpringContexts.withLock(BenchRedis.url(), lockProperties());
        this.service = this.context.getBean(LockedService.class);
        this.suspending = this.context.getBean(SuspendingLockedService.class);
        this.template = this.context.getBean(DistributedLockTemplate.class);
    }

    @TearDown(Level.Trial)
    public void stop() {
        this.context.close();
        stopped();
    }

    /** Lock properties of the topology measured; none: the one benchmark Redis. */
    protected String[] lockProperties() {
        return new String[0];
    }

    /** After the context closed: stop what {@link #lockProperties()} started. */
    protected void stopped() {
    }

    @Benchmark
    public long annotatedFixedLease() {
        try {
            return this.service.fixedLease(RandomKeys.nextId());
        }
        catch (LockNotAcquiredException ex) {
            return -1;
        }
    }

    /** {@link #annotatedFixedLease()} on a Kotlin {@code suspend fun}, one {@code runBlocking} per call. */
    @Benchmark
    public long suspendFixedLease() {
        try {
            return SuspendingCalls.fixedLease(this.suspending, RandomKeys.nextId());
        }
        catch (LockNotAcquiredException ex) {
            return -1;
        }
    }

    @Benchmark
    public long annotatedRenewedLease() {
        try {
            return this.service.renewedLease(RandomKeys.nextId());
        }
        catch (LockNotAcquiredException ex) {
            return -1;
        }
    }

    @Benchmark
    public Boolean templateFixedLease() {
        try {
            return this.template.execute(RandomKeys.nextKey(), Duration.ZERO, LEASE, EMPTY_BODY);
        }
        catch (LockNotAcquiredException ex) {
            return Boolean.FALSE;
        }
    }

    @Benchmark
    public Boolean templateRenewedLease() {
        try {
            return this.template.execute(RandomKeys.nextKey(), Duration.ZERO, null, EMPTY_BODY);
        }
        catch (LockNotAcquiredException ex) {
            return Boolean.FALSE;
        }
    }
}
