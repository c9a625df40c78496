package io.github.redislock.engine;

/**
 * What an application's lock engine shows the library's meters, whatever the store: its snapshot and its probe.
 * Implemented by {@link LockEngine} itself (the ZooKeeper module exposes one as a bean) and by the facades over
 * one ({@code RedisLockClient}, {@code RedlockClient}), so that the meters bind to the one bean of this type that
 * an application has. Internal: not for applications to implement.
 */
public interface LockEngineView {

    /**
     * What this application holds and waits for now, and how renewal fares: a read-only snapshot, taken with no
     * lock on the hot path and nothing sent to the store.
     */
    LockEngineState state();

    /** Tells the probe what only the engine and its store see (hand-offs, failed renewal rounds). */
    void observe(LockEngineProbe probe);
}
