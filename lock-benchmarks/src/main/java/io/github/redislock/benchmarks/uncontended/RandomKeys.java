package io.github.redislock.benchmarks.uncontended;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Lock ids drawn uniformly from one million, so that eight threads practically never pick the same key at
 * the same time (the uncontended case) and Redis sees a realistic spread of keys rather than one hot slot.
 */
final class RandomKeys {

    static final int KEY_SPACE = 1_000_000;

    private RandomKeys() {
    }

    static long nextId() {
        return ThreadLocalRandom.current().nextInt(KEY_SPACE);
    }

    static String nextKey() {
        return "bench:" + nextId();
    }
}
