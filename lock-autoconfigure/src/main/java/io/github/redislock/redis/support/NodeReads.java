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
     * @param counterKey the key's fence counter, read too; {@code null}: none
     * @param maxChars the most characters of a value read (longer values are cut: more is not ours)
     * @throws LockException if fewer than a majority of the nodes answered
     */
    List<Reading> majority(String key, @Nullable String queueKey, @Nullable String counterKey, int maxChars) {
        List<String> keys = (counterKey != null) ? List.of(key, (queueKey != null) ? queueKey : "", counterKey)
                : (queueKey != null) ? List.of(key, queueKey) : List.of(key);
        String max = Integer.toString(maxChars);
        // HashMap takes null as a key: no key on a node groups as one value of its own.
        Map<@Nullable String, List<Reading>> byValue = new HashMap<>();
        int answered = 0;
        RuntimeException failure = null;
        for (StringRedisTemplate node : this.nodes) {
            try {
                Reading reading = Reading.of(node.execute(INSPECT, keys, max));
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
     */
    record Reading(@Nullable String value, long pttl, long queued, long counter) {

        static Reading of(@Nullable List<?> reply) {
            if (reply == null || reply.size() != 4) {
                throw new LockException("Unexpected reply to inspect.lua: " + reply);
            }
            Object value = reply.get(0);
            return new Reading((value != null) ? value.toString() : null, ((Number) reply.get(1)).longValue(),
                    ((Number) reply.get(2)).longValue(), ((Number) reply.get(3)).longValue());
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
