package io.github.redislock.storekit;

import java.time.Duration;
import java.util.List;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockStore;

/**
 * What {@link LockStoreContract} needs of a store under test: one backend (a Redis server, a cluster, Redlock's
 * masters, a ZooKeeper ensemble, a map in memory), and a way to build any number of stores over it, each one
 * "application" with its own connections, session and instance id, as separate processes would have them. The
 * kit puts a {@link io.github.redislock.engine.LockEngine} over each store and checks everything through the
 * engines; the fixture is asked only for what no engine can do: take a lock away behind its holder's back, and
 * say what the backend still keeps for a key.
 * <p>
 * A fixture is made for one check ({@link LockStoreContract#fixture()}) and closed after it, once the kit has
 * closed every engine (and so every store) over it: that is where it drops what it made for the check
 * (connections, clients, keys). What differs from store to store is said by the fixture ({@link #leased},
 * {@link #sessionLossNotice}), not by skipping checks: every store passes every check.
 */
public interface StoreFixture extends AutoCloseable {

    /**
     * A new store over the fixture's backend, for one more application: its own connections (or session), so
     * that what one application keeps locally (a waiting line, a turn, a session) is not shared with another.
     * The kit closes it, through the engine it puts over it.
     */
    LockStore newStore();

    /**
     * Takes the lock on {@code key} away from the backend behind its holder's back, the way the store loses a
     * lock in production: for a leased store its key deleted (as by an expiry, a failover, an operator), on
     * enough nodes that the store no longer holds it (for Redlock, a majority); for a session store the holder's
     * session ended. The holder's engine must then find and report the loss by itself.
     * @param holder the store (made by {@link #newStore}) through which the lock is held
     * @param key the store's key ({@link LockStore#key})
     */
    void loseLock(LockStore holder, String key);

    /**
     * Takes one holder of a shared key (a reader, a semaphore's permit) away from the backend behind its back, as
     * {@link #loseLock} does for a lock, leaving the key's other holders alone. The default is {@link #loseLock},
     * right for a store whose loss takes only that holder's locks (a session store ends the holder's session); a
     * store that keeps every holder of a key under one entry must override it.
     * @param holder the store through which the permit is held
     * @param key the store's key
     * @param token the holder's token ({@link io.github.redislock.LockHandle#token()})
     */
    default void losePermit(LockStore holder, String key, String token) {
        loseLock(holder, key);
    }

    /**
     * An application crashed: its engine stopped without releasing anything and its store is closed. The backend
     * ends what it keeps of a process that is gone as it would in production. The default does nothing, right for
     * a leased store (its locks expire by themselves within one lease); a session store ends the application's
     * session here, as its servers do once the session timeout has passed without a word from the process (that
     * wait, the servers' own, is left out so that the check is not bound by the session timeout).
     * @param store the store (made by {@link #newStore}) of the crashed application
     */
    default void crashed(LockStore store) {
    }

    /**
     * What the backend keeps for the key now, read from the backend itself, not through a store: the key,
     * queue entries, lock nodes, on any node; one line each, empty when nothing is left. What a store keeps on
     * purpose beyond a key's life (a fencing counter that must outlive it) is not residue.
     * @param key the store's key ({@link LockStore#key})
     */
    List<String> residue(String key);

    /**
     * Names an application instance in the store's instance registry, so that {@link LockStore#inspect} from any
     * application names it as the holder of the keys it holds.
     * @param store the store (made by {@link #newStore}) of that application
     * @param self the instance
     * @param ownerId the random id that begins the tokens of the engine over the store
     * ({@link io.github.redislock.engine.LockEngine#ownerId})
     * By default through the SPI ({@link LockStore#publishInstance}); a fixture whose store writes its entry only
     * once started (as a bean's lifecycle would) starts it here too.
     * @return false when the store keeps no registry: the kit then expects holders it cannot name
     */
    default boolean publishInstance(LockStore store, InstanceInfo self, String ownerId) {
        store.publishInstance(self, ownerId);
        return true;
    }

    /**
     * Whether the store's locks are leased (they expire unless extended, and a loss is found by the engine's
     * renewal within a renewal period), or last as long as a session (and the store itself reports a loss).
     * The kit checks that the stores say the same ({@link LockStore#leased}).
     */
    boolean leased();

    /**
     * For a store that is not {@link #leased}: how long after {@link #loseLock} the store reports the loss at
     * most on an idle machine (the time its client takes to learn that its session ended). Not asked of a
     * leased store, whose losses the engine's renewal finds.
     */
    default Duration sessionLossNotice() {
        throw new UnsupportedOperationException("A store that is not leased says how soon it notices a lost session");
    }

    /** Drops what the fixture made for the check; every store over it is closed by then. */
    @Override
    default void close() {
    }
}
