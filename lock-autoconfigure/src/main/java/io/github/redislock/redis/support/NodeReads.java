package io.github.redislock.redis.support;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.KeyRules;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Reads one key on each node of a store ({@code inspect.lua}: one node for a single Redis, every master for
 * Redlock) and finds what a majority of them says: the read side of the holder view and the instance registry.
 * Read-only; the nodes are asked one after the other, each within the connection's command timeout.
 */
final class NodeReads {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> INSPECT = LockScripts.load("inspect.lua", List.class);

    /** Most holders of a shared key read per node. */
    static final int MAX_HOLDERS = 256;

    private static final String MAX_HOLDERS_TEXT = Integer.toString(MAX_HOLDERS);

    private final List<StringRedisTemplate> nodes;

    private final int quorum;

    NodeReads(List<StringRedisTemplate> nodes, int quorum) {
        this.nodes = List.copyOf(nodes);
        this.quorum = quorum;
    }

    List<StringRedisTemplate> nodes() {
        return this.nodes;
    }

    /**
     * What a majority of the nodes holds under the key: the readings that agree on one owner (the value up to its
     * last colon, as each node stores its own fence after it; no key counts as one owner), or an empty list when
     * no owner has a majority.
     * @param queueKey the key's queue of waiting applications, counted too; {@code null}: none
     * @param holdersKey the key's holders while shared, read too (at most {@link #MAX_HOLDERS}); {@code null}: none
     * @param counterKey the key's fence counter, read too; {@code null}: none
     * @param maxChars the most characters of a value read (longer values are cut: more is not ours)
     * @throws LockException if fewer than a majority of the nodes answered
     */
    List<Reading> majority(String key, @Nullable String queueKey, @Nullable String holdersKey,
            @Nullable String counterKey, int maxChars) {
        List<String> keys = new ArrayList<>(4);
        keys.add(key);
        if (queueKey != null || holdersKey != null || counterKey != null) {
            keys.add((queueKey != null) ? queueKey : "");
        }
        if (holdersKey != null || counterKey != null) {
            keys.add((holdersKey != null) ? holdersKey : "");
        }
        if (counterKey != null) {
            keys.add(counterKey);
        }
        String max = Integer.toString(maxChars);
        // HashMap takes null as a key: no key on a node groups as one value of its own.
        Map<@Nullable String, List<Reading>> byValue = new HashMap<>();
        int answered = 0;
        RuntimeException failure = null;
        for (StringRedisTemplate node : this.nodes) {
            try {
                Reading reading = Reading.of(node.execute(INSPECT, keys, max, MAX_HOLDERS_TEXT));
                answered++;
                byValue.computeIfAbsent(reading.owner(), (owner) -> new ArrayList<>()).add(reading);
            }
            catch (RuntimeException ex) {
                failure = ex;
            }
        }
        if (answered < this.quorum) {
            throw new LockException("Only " + answered + " of " + this.nodes.size() + " Redis nodes answered for '"
                    + KeyRules.printable(key) + "'", failure);
        }
        for (List<Reading> readings : byValue.values()) {
            if (readings.size() >= this.quorum) {
                return readings;
            }
        }
        return List.of();
    }

    /** The quorum: how many readings must agree. */
    int quorum() {
        return this.quorum;
    }

    /**
     * One node's answer.
     * @param value the value's first characters, {@code null} for no key
     * @param pttl the key's PTTL
     * @param queued the queue's length, -1 when not asked for or not readable
     * @param counter the fence counter, -1 when not asked for or not readable
     * @param holders a shared key's holders whose lease has not run out, longest-lived first (their entries, cut,
     * and milliseconds left); empty for a key that is not shared
     */
    record Reading(@Nullable String value, long pttl, long queued, long counter, List<Share> holders) {

        static Reading of(@Nullable List<?> reply) {
            if (reply == null || reply.size() != 5 || !(reply.get(4) instanceof List<?> pairs)) {
                throw new LockException("Unexpected reply to inspect.lua: " + reply);
            }
            List<Share> holders = new ArrayList<>(pairs.size() / 2);
            for (int i = 0; i + 1 < pairs.size(); i += 2) {
                holders.add(new Share(String.valueOf(pairs.get(i)), ((Number) pairs.get(i + 1)).longValue()));
            }
            Object value = reply.get(0);
            return new Reading((value != null) ? value.toString() : null, ((Number) reply.get(1)).longValue(),
                    ((Number) reply.get(2)).longValue(), ((Number) reply.get(3)).longValue(), holders);
        }

        /**
         * One holder of a shared key on one node.
         * @param entry its entry among the holders ({@code <token>:<fence>}, a waiter let in, a kept one), cut
         * @param millisLeft how long until its lease runs out
         */
        record Share(String entry, long millisLeft) {
        }

        /** The value up to its last colon (the whole value without one); {@code null} for no key. */
        @Nullable String owner() {
            if (this.value == null) {
                return null;
            }
            int colon = this.value.lastIndexOf(':');
            return (colon < 0) ? this.value : this.value.substring(0, colon);
        }
    }
}
