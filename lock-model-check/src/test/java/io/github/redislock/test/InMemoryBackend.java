package io.github.redislock.test;

import java.util.ArrayList;
import java.util.List;

import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.modelcheck.Backend;

/** lock-test's in-memory store: every application's store shares one backend store's keys, which no engine uses. */
public final class InMemoryBackend implements Backend {

    private final InMemoryLockStore backend = new InMemoryLockStore("model:");

    @Override
    public LockStore newStore() {
        return new InMemoryLockStore(this.backend.key(""), this.backend);
    }

    @Override
    public void forget(String key) {
        this.backend.drop(this.backend.key(key));
    }

    @Override
    public List<String> residue(String key) {
        LockInspection state = this.backend.inspect(this.backend.key(key));
        List<String> residue = new ArrayList<>();
        if (state.state() != LockInspection.State.FREE) {
            residue.add(key + " " + state.state());
        }
        if (state.waiting() != null && state.waiting() > 0) {
            residue.add(state.waiting() + " takes in its line");
        }
        return residue;
    }

    @Override
    public void close() {
        this.backend.close();
    }
}
