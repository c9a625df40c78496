package io.github.redislock.storekit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.github.redislock.testsupport.RedisServer;

/**
 * What Redis servers keep for a lock key, read from the servers themselves (the test's own connection, not the
 * store's): for the Redis stores' fixtures.
 */
public final class RedisNodes {

    private RedisNodes() {
    }

    /**
     * Every key on the nodes that begins with the lock key (the key itself and its companions: the queue of
     * waiting applications and its entries), but those the store keeps on purpose.
     * @param keptOnPurpose keys that outlive a lock by design (Redlock's fencing counter)
     */
    public static List<String> keysOf(List<RedisServer> nodes, String key, Predicate<String> keptOnPurpose) {
        List<String> found = new ArrayList<>();
        for (RedisServer node : nodes) {
            for (Object name : (List<?>) node.command("KEYS", glob(key) + "*")) {
                if (!keptOnPurpose.test((String) name)) {
                    found.add(name + " on " + node);
                }
            }
        }
        return found;
    }

    /** The text as a {@code KEYS} pattern that matches only itself. */
    private static String glob(String text) {
        StringBuilder pattern = new StringBuilder(text.length());
        for (char c : text.toCharArray()) {
            if ("*?[]\\".indexOf(c) >= 0) {
                pattern.append('\\');
            }
            pattern.append(c);
        }
        return pattern.toString();
    }
}
