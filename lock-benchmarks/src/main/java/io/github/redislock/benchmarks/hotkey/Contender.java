package io.github.redislock.benchmarks.hotkey;

import java.util.function.Function;

/**
 * A lock implementation in the hot-key run: its table name and how to create one more independent client
 * instance of it for a Redis URL.
 */
public record Contender(String implementation, Function<String, ContendedLock> newInstance) {
}
