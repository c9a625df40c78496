package io.github.redislock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.redis.support.InstanceRegistry;

/**
 * This application's entries in the single-Redis store's instance registry, over the store's lifecycle: asked for
 * once ({@link #ask}, from {@code publishInstance}), written from {@link #start} on (at once when asked for after
 * it), and deleted at {@link #stop}, for good. One entry under the engine's owner id and one under the store's
 * client id, which a hand-off writes as a key's owner.
 */
final class InstanceEntries {

    private final InstanceRegistry registry;

    private final String clientId;

    private volatile Duration ttl = Duration.ofSeconds(30);

    private volatile @Nullable Asked asked;

    private volatile boolean started;

    private final AtomicBoolean stopped = new AtomicBoolean();

    InstanceEntries(InstanceRegistry registry, String clientId) {
        this.registry = registry;
        this.clientId = clientId;
    }

    /** How long an entry outlives this instance (refreshed every third of it); before {@link #start}. */
    void ttl(Duration ttl) {
        this.ttl = ttl;
    }

    void ask(InstanceInfo self, String ownerId) {
        this.asked = new Asked(self, ownerId);
        if (this.started) {
            publish();
        }
    }

    void start() {
        this.started = true;
        publish();
    }

    /** Deletes the entries; once (a store is stopped, then closed by its engine and by its context). */
    void stop() {
        this.started = false;
        if (this.stopped.compareAndSet(false, true)) {
            this.registry.withdraw();
        }
    }

    // The registry writes once: a start and an ask that race both get here, and the second does nothing.
    private void publish() {
        Asked entry = this.asked;
        if (entry != null) {
            this.registry.publish(entry.self, List.of(entry.ownerId, this.clientId), this.ttl);
        }
    }

    private record Asked(InstanceInfo self, String ownerId) {
    }
}
