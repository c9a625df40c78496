package io.github.redislock.test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.storekit.ForwardingStore;
import io.github.redislock.storekit.StoreFixture;

/**
 * lock-test's in-memory store under the kit: every application's store shares the keys and the instance registry
 * of one backend store, which no engine uses; a lock is lost by dropping its key there. Stores may be decorated
 * ({@link ForwardingStore}): the broken stores the kit must catch, and the engine's own tests, are built this way.
 */
public final class InMemoryStoreFixture implements StoreFixture {

    private final InMemoryLockStore backend;

    private final UnaryOperator<LockStore> decorate;

    /** Stores with the prefix {@code kit:}, as they are. */
    public InMemoryStoreFixture() {
        this("kit:", UnaryOperator.identity());
    }

    /**
     * @param keyPrefix the key prefix of every store
     * @param decorate wraps each store made for an application
     */
    public InMemoryStoreFixture(String keyPrefix, UnaryOperator<LockStore> decorate) {
        this.backend = new InMemoryLockStore(keyPrefix);
        this.decorate = decorate;
    }

    @Override
    public LockStore newStore() {
        return this.decorate.apply(new InMemoryLockStore(this.backend.key(""), this.backend));
    }

    /** The key deleted behind its holder's back: whichever store holds it, they all share the backend's keys. */
    @Override
    public void loseLock(LockStore holder, String key) {
        this.backend.drop(key);
    }

    /** The holder's entry alone goes from the key's holders. */
    @Override
    public void losePermit(LockStore holder, String key, String token) {
        this.backend.drop(key, token);
    }

    /** The key held or kept, or takes in its line: read from the backend's slot. */
    @Override
    public List<String> residue(String key) {
        LockInspection state = this.backend.inspect(key);
        List<String> residue = new ArrayList<>();
        if (state.state() != LockInspection.State.FREE) {
            residue.add(key + " " + state.state());
        }
        if (state.waiting() != null && state.waiting() > 0) {
            residue.add(state.waiting() + " takes in the line of " + key);
        }
        return residue;
    }


    @Override
    public boolean leased() {
        return true;
    }

    @Override
    public void close() {
        this.backend.close();
    }
}
