package io.github.redislock.storekit;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;

/**
 * A store that hands every call to another one, and wraps the locks it takes ({@link Lock}), for tests that
 * change one answer of a real store: a broken store the kit must catch, or a store that records and scripts what
 * the engine's own tests need. Subclasses override the calls they change; the wrapped lock's fencing token and
 * lease start come from {@link #fencingToken} and {@link #leaseStartNanos}, its release goes to {@link #release}.
 */
public class ForwardingStore implements LockStore {

    protected final LockStore store;

    /** The locks handed out and not yet released, by the lock of the store under it. */
    private final Map<StoreLock, Lock> live = new ConcurrentHashMap<>();

    private volatile StoreListener listener = (lock, how) -> {
    };

    public ForwardingStore(LockStore store) {
        this.store = store;
    }

    @Override
    public String key(String name) {
        return this.store.key(name);
    }

    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos) {
        StoreLock taken = this.store.take(key, token, leaseMillis, renewed, deadlineNanos);
        return (taken != null) ? wrap(taken) : null;
    }

    /**
     * An exclusive take goes through {@link #take(String, String, long, boolean, long)} (so that decorators of it
     * see every take); a shared one to the store under it, as {@link #sharing} says.
     */
    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos,
            Sharing sharing) {
        if (sharing.isExclusive()) {
            return take(key, token, leaseMillis, renewed, deadlineNanos);
        }
        StoreLock taken = this.store.take(key, token, leaseMillis, renewed, deadlineNanos, sharing(sharing));
        return (taken != null) ? wrap(taken) : null;
    }

    /** How a shared take is passed to the store under it (as asked, unless overridden). */
    protected Sharing sharing(Sharing asked) {
        return asked;
    }

    @Override
    public boolean supports(Sharing sharing) {
        return this.store.supports(sharing);
    }

    /** The lock handed out for one the store under it took. */
    protected final Lock wrap(StoreLock taken) {
        Lock lock = new Lock(this, taken, fencingToken(taken), leaseStartNanos(taken));
        this.live.put(taken, lock);
        return lock;
    }

    /** The fencing token handed out with a lock the store under it took (its own, unless overridden). */
    protected long fencingToken(StoreLock taken) {
        return taken.fencingToken();
    }

    /** The lease start handed out with a lock the store under it took (its own, unless overridden). */
    protected long leaseStartNanos(StoreLock taken) {
        return taken.leaseStartNanos();
    }

    @Override
    public boolean leased() {
        return this.store.leased();
    }

    @Override
    public long validNanos(long leaseMillis) {
        return this.store.validNanos(leaseMillis);
    }

    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        List<StoreLock> under = new ArrayList<>(locks.size());
        locks.forEach((lock) -> under.add(((Lock) lock).taken()));
        return this.store.extend(under, leaseMillis);
    }

    /** Releases the lock in the store under it. */
    protected boolean release(Lock lock, long keepMillis) {
        this.live.remove(lock.taken());
        return lock.taken().release(keepMillis);
    }

    @Override
    public void listen(StoreListener listener) {
        this.listener = listener;
        this.store.listen((taken, how) -> {
            Lock lock = this.live.get(taken);
            if (lock != null) {
                listener.lost(lock, how);
            }
        });
    }

    /** The engine's listener, for a store that reports a loss itself. */
    protected final StoreListener listener() {
        return this.listener;
    }

    @Override
    public void publishInstance(InstanceInfo self, String ownerId) {
        this.store.publishInstance(self, ownerId);
    }

    @Override
    public void observe(LockEngineProbe probe) {
        this.store.observe(probe);
    }

    @Override
    public String describe() {
        return this.store.describe();
    }

    @Override
    public Map<String, Integer> waiting() {
        return this.store.waiting();
    }

    @Override
    public LockInspection inspect(String key) {
        return this.store.inspect(key);
    }

    @Override
    public void close() {
        this.store.close();
    }

    /**
     * A lock of the store under it, as a forwarding store hands it out.
     * @param store the store that handed it out, where it is released
     * @param taken the lock of the store under it
     * @param fencingToken the fencing token handed out with it
     * @param leaseStartNanos the lease start handed out with it
     */
    public record Lock(ForwardingStore store, StoreLock taken, long fencingToken, long leaseStartNanos)
            implements StoreLock {

        @Override
        public String key() {
            return this.taken.key();
        }

        @Override
        public String token() {
            return this.taken.token();
        }

        @Override
        public boolean isValid() {
            return this.taken.isValid();
        }

        @Override
        public boolean verify() {
            return this.taken.verify();
        }

        @Override
        public boolean release(long keepMillis) {
            return this.store.release(this, keepMillis);
        }
    }
}
