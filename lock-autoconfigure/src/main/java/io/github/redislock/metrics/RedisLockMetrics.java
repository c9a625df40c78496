package io.github.redislock.metrics;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.redislock.LockLossDetection;
import io.github.redislock.LockLostEvent;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockEngine;

import org.springframework.context.ApplicationListener;

/**
 * The engine's meters, whatever the store (one Redis, Redlock, ZooKeeper), bound to every registry Spring Boot
 * hands it:
 * <ul>
 * <li>{@code redis.lock.lost} (counter, tag {@code detection}: {@code renewal}, {@code release},
 * {@code commit-check}, {@code session}): locks found lost while held;</li>
 * <li>{@code redis.lock.renewal.failures} (counter): renewal rounds that failed (the store unreachable, timed
 * out); always 0 on ZooKeeper, whose locks are not renewed;</li>
 * <li>{@code redis.lock.handoffs} (counter, tag {@code via}: {@code redis} or {@code local}): locks a release
 * handed to a thread of this application instead of it finding them free: taken over in Redis from another
 * holder's release, or passed straight from another thread of this application; single Redis only (the other
 * stores hand nothing over: 0);</li>
 * <li>{@code redis.lock.held} (gauge): keys this application holds now;</li>
 * <li>{@code redis.lock.waiting} (gauge): threads of this application waiting for a lock now.</li>
 * </ul>
 * The gauges read the engine's snapshot when the registry asks (a scrape), never on the locking path.
 */
public final class RedisLockMetrics implements MeterBinder, LockEngineProbe, ApplicationListener<LockLostEvent> {

    private final LockEngine engine;

    /** One set of counters per registry bound to. */
    private final List<Counters> bound = new CopyOnWriteArrayList<>();

    /** Meters of the given engine, whatever its store. */
    public RedisLockMetrics(LockEngine engine) {
        this.engine = engine;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.bound.add(new Counters(registry));
        Gauge.builder("redis.lock.held", this.engine, (engine) -> engine.state().held().size())
            .description("Keys this application holds now")
            .register(registry);
        Gauge.builder("redis.lock.waiting", this.engine, RedisLockMetrics::waitingThreads)
            .description("Threads of this application waiting for a lock now")
            .register(registry);
        this.engine.observe(this);
    }

    private static double waitingThreads(LockEngine engine) {
        int threads = 0;
        for (int waiting : engine.state().waiting().values()) {
            threads += waiting;
        }
        return threads;
    }

    @Override
    public void onApplicationEvent(LockLostEvent event) {
        for (Counters counters : this.bound) {
            counters.lost.get(event.getDetection()).increment();
        }
    }

    @Override
    public void takenOver(String key, boolean local) {
        for (Counters counters : this.bound) {
            (local ? counters.localHandoffs : counters.handoffs).increment();
        }
    }

    @Override
    public void renewalFailed(int locks, RuntimeException failure) {
        for (Counters counters : this.bound) {
            counters.renewalFailures.increment();
        }
    }

    /** The counters of one registry, registered up front so that they read 0 rather than missing. */
    private static final class Counters {

        final Map<LockLossDetection, Counter> lost = new EnumMap<>(LockLossDetection.class);

        final Counter renewalFailures;

        final Counter handoffs;

        final Counter localHandoffs;

        Counters(MeterRegistry registry) {
            for (LockLossDetection detection : LockLossDetection.values()) {
                this.lost.put(detection, Counter.builder("redis.lock.lost")
                    .description("Locks found lost while held, by how the loss was detected")
                    .tag("detection", detection.name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .register(registry));
            }
            this.renewalFailures = Counter.builder("redis.lock.renewal.failures")
                .description("Lease renewal rounds that failed")
                .register(registry);
            this.handoffs = Counter.builder("redis.lock.handoffs")
                .description("Locks a release handed to this application")
                .tag("via", "redis")
                .register(registry);
            this.localHandoffs = Counter.builder("redis.lock.handoffs")
                .description("Locks a release handed to this application")
                .tag("via", "local")
                .register(registry);
        }
    }
}
