package io.github.redislock.metrics;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import io.github.redislock.leader.Leadership;
import io.github.redislock.leader.LeadershipGrantedEvent;
import io.github.redislock.leader.LeadershipRevokedEvent;

import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;

/**
 * The meters of the elections this application stands in, bound to every registry Spring Boot hands it:
 * <ul>
 * <li>{@code redis.lock.leader} (gauge, tag {@code election}): 1 while this instance leads the election, else 0;</li>
 * <li>{@code redis.lock.leader.grants} (counter, tag {@code election}): times this instance was granted it;</li>
 * <li>{@code redis.lock.leader.revocations} (counter, tags {@code election} and {@code reason}: {@code yielded},
 * {@code lost}, {@code stopped}): times its leadership ended, and why. A {@code lost} one is worth an alert: the
 * leader could not renew, was paused, or the store forgot the leadership.</li>
 * </ul>
 */
public final class LeaderMetrics implements MeterBinder, ApplicationListener<ApplicationEvent> {

    private final Supplier<? extends Collection<? extends Leadership>> elections;

    private final List<MeterRegistry> registries = new CopyOnWriteArrayList<>();

    /** @param elections the application's elections, asked when a registry is bound */
    public LeaderMetrics(Supplier<? extends Collection<? extends Leadership>> elections) {
        this.elections = elections;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        this.registries.add(registry);
        for (Leadership leadership : this.elections.get()) {
            gauge(registry, leadership);
        }
    }

    private static void gauge(MeterRegistry registry, Leadership leadership) {
        // Registered again for a known election, Micrometer returns the existing gauge.
        Gauge.builder("redis.lock.leader", leadership, (leading) -> leading.isLeader() ? 1 : 0)
            .tag("election", leadership.name())
            .description("1 while this instance leads the election, else 0")
            .register(registry);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof LeadershipGrantedEvent granted) {
            for (MeterRegistry registry : this.registries) {
                if (granted.getSource() instanceof Leadership leadership) {
                    gauge(registry, leadership);
                }
                Counter.builder("redis.lock.leader.grants").tag("election", granted.getName())
                    .description("Times this instance was granted the leadership of the election")
                    .register(registry)
                    .increment();
            }
        }
        else if (event instanceof LeadershipRevokedEvent revoked) {
            for (MeterRegistry registry : this.registries) {
                Counter.builder("redis.lock.leader.revocations").tag("election", revoked.getName())
                    .tag("reason", revoked.getReason().name().toLowerCase(Locale.ROOT))
                    .description("Times this instance's leadership of the election ended, by reason")
                    .register(registry)
                    .increment();
            }
        }
    }
}
