package io.github.redislock.redis.support;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.Sharing;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The cluster-wide holder view of a Redis store ({@link io.github.redislock.engine.LockStore#inspect}): reads a
 * lock key now ({@code inspect.lua}: its value, cut; its PTTL; its queue's length) and names the holder from the
 * owner part of the value through the store's {@link InstanceRegistry}. Read-only, and separate from the lock's
 * own path: taking and releasing locks neither knows nor pays for it.
 * <ul>
 * <li>On a single Redis the key's state, fencing token, lease remaining and queued applications are the
 * server's.</li>
 * <li>A shared key (read locks, a semaphore's permits) shows its kind and every holder ({@link SharedKeyView}); the
 * top-level holder, fencing token and lease are those of the holder with the highest fencing token.</li>
 * <li>On Redlock ({@link #forNodes}) they are what a majority of the masters holds (the same value on a
 * majority; the lease remaining as long as a majority still has it); no value on a majority is
 * {@link State#OTHER}. Redlock keeps no queue: {@code waiting} is {@code null}.</li>
 * </ul>
 * {@code since} is read from the fence in the key's value, which both draw from the Redis clock in microseconds
 * when a key is taken (or handed on); it is as exact as the servers' clocks. (Redlock's fencing token is a counter
 * kept apart, read from each master.)
 */
public final class HolderView {

    private final NodeReads nodes;

    private final InstanceRegistry registry;

    private final boolean queues;

    /** The name of a key's fence counter, for stores that keep the fencing token apart; else {@code null}. */
    private final @Nullable UnaryOperator<String> fenceKey;

    private HolderView(NodeReads nodes, String keyPrefix, boolean queues, @Nullable UnaryOperator<String> fenceKey) {
        this.nodes = nodes;
        this.registry = new InstanceRegistry(nodes, keyPrefix);
        this.queues = queues;
        this.fenceKey = fenceKey;
    }

    /** The view of a single Redis (standalone, Sentinel or Cluster), which keeps a queue per key. */
    public static HolderView forRedis(RedisConnectionFactory connectionFactory, String keyPrefix) {
        return new HolderView(new NodeReads(List.of(new StringRedisTemplate(connectionFactory)), 1), keyPrefix, true,
                null);
    }

    /**
     * The view of independent masters (Redlock): what a majority of them says.
     * @param fenceKey the name of a lock key's fence counter on each master
     */
    public static HolderView forNodes(List<? extends RedisConnectionFactory> nodes, String keyPrefix,
            UnaryOperator<String> fenceKey) {
        List<StringRedisTemplate> templates = new ArrayList<>(nodes.size());
        for (RedisConnectionFactory node : nodes) {
            templates.add(new StringRedisTemplate(node));
        }
        return new HolderView(new NodeReads(templates, nodes.size() / 2 + 1), keyPrefix, false, fenceKey);
    }

    /** The store's instance registry, which this view reads and each instance publishes itself in. */
    public InstanceRegistry registry() {
        return this.registry;
    }

    /**
     * Who holds the key now.
     * @param key the store's key (prefix added, key rules checked)
     * @throws io.github.redislock.LockException if Redis (or a majority of the masters) cannot be reached
     */
    public LockInspection inspect(String key) {
        // A single Redis keeps a queue per key; Redlock keeps a fence counter per key, the fencing token of the
        // majority's holder (each master's value carries a fence of that master's own).
        List<NodeReads.Reading> agreeing = this.nodes.majority(key, this.queues ? KeySlots.queueKey(key) : null,
                KeySlots.holdersKey(key), (this.fenceKey != null) ? this.fenceKey.apply(key) : null,
                LockValue.MAX_READ);
        if (agreeing.isEmpty()) {
            return new LockInspection(key, State.OTHER, null, null, null, null, null);
        }
        NodeReads.Reading reading = agreeing.get(0);
        Integer waiting = (this.queues && reading.queued() >= 0) ? (int) Math.min(reading.queued(), Integer.MAX_VALUE)
                : null;
        Sharing sharing = SharedKeyView.sharing(reading.value());
        if (sharing != null) {
            return SharedKeyView.inspect(key, sharing, agreeing, this.nodes.quorum(), this.registry::resolve, waiting,
                    (this.fenceKey != null) ? counter(agreeing) : null);
        }
        LockValue.Read read = LockValue.read(reading.value());
        if (read.state() == State.FREE) {
            return LockInspection.free(key, waiting);
        }
        Holder holder = null;
        if (read.ownerId() != null) {
            InstanceInfo instance = this.registry.resolve(read.ownerId());
            holder = (instance != null) ? Holder.of(instance) : Holder.UNKNOWN;
        }
        // The value's own fence (on Redlock, the first agreeing master's clock when it took the key) says since when.
        LockValue.Read fenced = (this.fenceKey != null) ? read.withFence(counter(agreeing)) : read;
        return new LockInspection(key, fenced.state(), holder, fenced.fence(), read.since(Instant.now()),
                leaseRemaining(agreeing), waiting);
    }

    /**
     * The token the majority's holder was given: the quorum-th largest fence counter among the agreeing masters. Each
     * master's take raised its own counter, and the token is the value that a majority's counters stand at; fewer
     * masters than a majority (those whose take answered after the holder's decision, or that an attempt which failed
     * raised further) can be above it.
     */
    private @Nullable Long counter(List<NodeReads.Reading> agreeing) {
        long[] counters = new long[agreeing.size()];
        for (int i = 0; i < counters.length; i++) {
            counters[i] = agreeing.get(i).counter();
        }
        Arrays.sort(counters);
        int quorum = Math.min(this.nodes.quorum(), counters.length);
        long counter = (quorum > 0) ? counters[counters.length - quorum] : -1;
        return (counter > 0) ? counter : null;
    }

    /** How long a majority still has the key: the quorum-th longest PTTL; {@code null} without expiry. */
    private @Nullable Duration leaseRemaining(List<NodeReads.Reading> agreeing) {
        List<NodeReads.Reading> sorted = new ArrayList<>(agreeing);
        sorted.sort(Comparator.comparingLong(NodeReads.Reading::pttl).reversed());
        long pttl = sorted.get(this.nodes.quorum() - 1).pttl();
        return (pttl >= 0) ? Duration.ofMillis(pttl) : null;
    }
}
