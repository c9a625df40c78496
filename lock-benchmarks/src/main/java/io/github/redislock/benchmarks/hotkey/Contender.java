package io.github.redislock.benchmarks.hotkey;

import java.util.function.Function;

/**
 * A lock implementation in the hot-key run: its table name, the store it locks in, and how to create one more
 * independent client instance of it for that store's address (a Redis URL, or a ZooKeeper connect string).
 */
public record Contender(String implementation, Store store, Function<String, ContendedLock> newInstance) {

    /** An implementation on the benchmark Redis. */
    public Contender(String implementation, Function<String, ContendedLock> newInstance) {
        this(implementation, Store.REDIS, newInstance);
    }

    /** Where the hot key lives: runs on different stores are compared in sections of their own. */
    public enum Store {

        /** The benchmark Redis ({@link io.github.redislock.benchmarks.BenchRedis}). */
        REDIS,

        /** The benchmark ZooKeeper ({@link io.github.redislock.benchmarks.BenchZooKeeper}). */
        ZOOKEEPER
    }
}
