package io.github.redislock.modelcheck;

import java.util.List;

import io.github.redislock.engine.LockStore;

/**
 * Where the stateful properties keep their locks: one backend (a map in memory, a Redis server), any number of
 * stores over it, one per application, and what only a test can do to it.
 */
public interface Backend extends AutoCloseable {

    /** A store of one more application over the backend. */
    LockStore newStore();

    /** The backend forgets the key behind its holder's back, as an expiry, a failover or an operator would. */
    void forget(String key);

    /** What the backend still keeps for the key (the key, queue entries), one line each; empty when nothing. */
    List<String> residue(String key);

    @Override
    void close();
}
