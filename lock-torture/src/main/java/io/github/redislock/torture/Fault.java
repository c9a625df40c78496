package io.github.redislock.torture;

import java.util.Set;

/**
 * What a nemesis did: when its fault began and ended (witness microseconds), which workers it hit (all of them
 * when it hit the Redis they share), and a sentence for the report.
 */
record Fault(long start, long end, Set<String> faulted, String description) {

    static Fault none(long now) {
        return new Fault(now, now, Set.of(), "none");
    }

    boolean isNone() {
        return this.faulted.isEmpty() && "none".equals(this.description);
    }
}
