package io.github.redislock.redis.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.DaemonThreads;
import io.github.redislock.engine.InstanceInfo;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The instance registry of a Redis store (one server, or every Redlock master): which application instance
 * stands behind an owner id, so that the holder view can name the holder of any key from its value alone, with
 * nothing written on the lock's hot path.
 * <p>
 * Each instance writes one entry per owner id its values carry (the random part of its tokens; on a single Redis
 * also its client id, which a hand-off writes) under {@code <key prefix>~lock~instance:<id>}, with a TTL, when it
 * starts; a thread of the registry's own ({@code redis-lock-registry}, never the renewal scheduler) writes them
 * again every third of the TTL, and {@link #withdraw} deletes them when the instance stops. A crashed instance's
 * entries expire within the TTL. A write that fails is logged and retried at the next refresh: the registry
 * only informs, so it never fails the application or a lock.
 * <pre>
 * NEW --publish--> PUBLISHED (entries written, refreshed every ttl/3) --withdraw--> WITHDRAWN (entries deleted)
 * NEW --withdraw--> WITHDRAWN (nothing to delete)
 * </pre>
 * An entry is a few lines of text ({@value #HEADER}, application, instance id, host, pid); one read back is
 * believed only in exactly that form, each field cut and checked (another client may have written anything),
 * and, on several nodes, only when a majority holds the same entry. Anything else is an unknown owner.
 */
public final class InstanceRegistry {

    private static final Log logger = LogFactory.getLog(InstanceRegistry.class);

    /** The first line of an entry: its format and version. Entries of another version are not read. */
    static final String HEADER = InstanceInfo.ENTRY_HEADER;

    /** Longest a withdrawal waits for a write on its way (each node's write is bounded by the command timeout). */
    private static final long WITHDRAW_WAIT_SECONDS = 10;

    /** Longest entry read. */
    private static final int MAX_ENTRY = InstanceInfo.MAX_ENTRY;

    private final NodeReads nodes;

    private final String keyPrefix;

    private final Object monitor = new Object();

    private @Nullable ScheduledExecutorService refresher;

    private List<String> published = List.of();

    private boolean withdrawn;

    InstanceRegistry(NodeReads nodes, String keyPrefix) {
        this.nodes = nodes;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Writes this instance's entries now and every third of the TTL until {@link #withdraw}; once.
     * @param self this instance
     * @param ownerIds the random ids this instance's lock values begin with
     * @param ttl how long an entry outlives the last refresh, at least 3 ms
     */
    public void publish(InstanceInfo self, List<String> ownerIds, Duration ttl) {
        long ttlMillis = Math.max(3, ttl.toMillis());
        String entry = entry(self);
        List<String> keys = new ArrayList<>(ownerIds.size());
        for (String id : ownerIds) {
            keys.add(KeySlots.instanceKey(this.keyPrefix, id));
        }
        synchronized (this.monitor) {
            if (this.withdrawn || this.refresher != null) {
                return;
            }
            this.published = List.copyOf(keys);
            this.refresher = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("redis-lock-registry"));
            this.refresher.scheduleWithFixedDelay(() -> write(keys, entry, ttlMillis), 0, ttlMillis / 3,
                    TimeUnit.MILLISECONDS);
        }
    }

    private void write(List<String> keys, String entry, long ttlMillis) {
        for (StringRedisTemplate node : this.nodes.nodes()) {
            try {
                for (String key : keys) {
                    node.opsForValue().set(key, entry, Duration.ofMillis(ttlMillis));
                }
            }
            catch (RuntimeException ex) {
                // Informational only: the holder view shows this instance as unknown until a write succeeds.
                logger.warn("Could not write this instance's entry to the redis-lock instance registry (the holder "
                        + "view shows its locks' holder as unknown until a refresh succeeds): " + ex);
            }
        }
    }

    /** Stops refreshing and deletes this instance's entries (best effort: otherwise they expire); for good. */
    public void withdraw() {
        List<String> keys;
        ScheduledExecutorService refresher;
        synchronized (this.monitor) {
            this.withdrawn = true;
            refresher = this.refresher;
            if (refresher == null) {
                return;
            }
            keys = this.published;
        }
        // No more refreshes, and a write on its way lands before the delete, not after it (it would outlive the
        // instance by a TTL). Not interrupted: an interrupted command may still reach Redis.
        refresher.shutdown();
        try {
            if (!refresher.awaitTermination(WITHDRAW_WAIT_SECONDS, TimeUnit.SECONDS)) {
                refresher.shutdownNow();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            refresher.shutdownNow();
        }
        for (StringRedisTemplate node : this.nodes.nodes()) {
            try {
                node.delete(keys);
            }
            catch (RuntimeException ex) {
                logger.debug("Could not delete this instance's registry entries; they expire with their TTL", ex);
            }
        }
    }

    /**
     * The instance behind an owner id, as a majority of the nodes has it registered; {@code null} when unknown
     * (no entry, no majority, an entry of another form, or too few nodes answering).
     * @param ownerId a random id checked by {@link LockValue#read}
     */
    @Nullable InstanceInfo resolve(String ownerId) {
        List<NodeReads.Reading> agreeing;
        try {
            agreeing = this.nodes.majority(KeySlots.instanceKey(this.keyPrefix, ownerId), null, null, null, MAX_ENTRY);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not read the instance registry", ex);
            return null;
        }
        return agreeing.isEmpty() ? null : parse(agreeing.get(0).value());
    }

    /** An entry as written ({@link InstanceInfo#entry}). */
    static String entry(InstanceInfo self) {
        return self.entry();
    }

    /** An entry read back ({@link InstanceInfo#parse}). */
    static @Nullable InstanceInfo parse(@Nullable String entry) {
        return InstanceInfo.parse(entry);
    }
}
