package io.github.redislock.benchmarks.hotkey;

import java.time.Duration;

/**
 * One client instance (one "process": its own connections) of some lock implementation, taking the one hot
 * key. Several threads share an instance, as request threads of one service would.
 */
public interface ContendedLock extends AutoCloseable {

    /** The key every instance fights over. */
    String HOT_KEY = "hot";

    /** How long an acquire call may wait: long enough that, under this load, waiting never times out. */
    Duration WAIT = Duration.ofSeconds(10);

    /** The lease of every acquisition. */
    Duration LEASE = Duration.ofSeconds(30);

    /**
     * Waits up to {@link #WAIT} for the hot key, runs the section while holding it, releases it.
     * @return false when the wait ran out (the section did not run)
     */
    boolean runLocked(Runnable section) throws InterruptedException;

    /** Releases this instance's connections and threads. */
    @Override
    void close();
}
