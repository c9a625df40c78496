package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;

/**
 * The store-neutral part of taking locks, over one {@link LockStore}: what every store gets without writing it.
 * <ul>
 * <li>Reentrancy: the thread that holds a key and asks for it again (a reentrant request) gets a nested handle on
 * the same store lock at once, with no store call; other threads are never let in by it. A non-reentrant request
 * (work that goes on off the calling thread: asynchronous and reactive methods) neither enters a held key nor
 * can be entered: it goes to the store, which keeps it out while the key is held. The key is released when the
 * last nested handle closes. The states of one key are in {@link Entry}.</li>
 * <li>Multi-key: the request's keys (sorted and without duplicates, see {@link LockRequest}) are taken one by
 * one in that order within the request's one wait time, all or nothing:
 * <pre>
 * TAKING(i) --key i taken or entered again--> TAKING(i+1) ... --last key--> HELD (one handle over all keys)
 * TAKING(i) --key i stays taken until the deadline, the store fails, or anything is thrown-->
 *           UNDONE (keys 0..i-1 released in reverse order, then the failure thrown)
 * </pre></li>
 * <li>holdAtLeast: counted from when the outermost acquisition got the key; nested ones sharing it may ask for
 * longer, and the longest minimum applies when the last one ends.</li>
 * <li>The interrupt check before anything is sent, and {@link LockNotAcquiredException} naming the store's
 * keys.</li>
 * </ul>
 * The store keeps, for now, its own waiting, renewal and loss signalling.
 */
public final class LockEngine implements LockProvider, LockInspector {

    private static final Log logger = LogFactory.getLog(LockEngine.class);

    private final LockStore store;

    private final long renewedLeaseMillis;

    /** Keys this application holds now through this engine, for reentrancy. */
    private final Map<String, Entry> held = new ConcurrentHashMap<>();

    /**
     * @param store where the locks are kept
     * @param renewedLease the lease of locks without a fixed lease, which the store renews while they are held
     */
    public LockEngine(LockStore store, Duration renewedLease) {
        this.store = store;
        this.renewedLeaseMillis = renewedLease.toMillis();
    }

    /**
     * Takes every key of the request, one by one in the request's order, within its one wait time; all or
     * nothing.
     * @throws LockNotAcquiredException if a key stayed taken for the whole wait time (nothing is then held)
     * @throws LockException if the store fails, a key is refused, or the thread is interrupted (nothing is then
     * held)
     */
    @Override
    public LockHandle acquire(LockRequest request) {
        long start = System.nanoTime();
        List<String> names = request.keys();
        String[] keys = new String[names.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = this.store.key(names.get(i));
        }
        if (Thread.currentThread().isInterrupted()) {
            // Never send an attempt whose answer nobody would wait for.
            throw new LockException("Interrupted before acquiring lock " + List.of(keys));
        }
        // Compared as deadline - now, which stays right even when the sum wraps (a wait of Long.MAX_VALUE ns).
        long deadline = start + request.waitNanos();
        Duration fixedLease = request.leaseTime();
        long lease = (fixedLease != null) ? fixedLease.toMillis() : this.renewedLeaseMillis;
        if (keys.length == 1) {
            LockHandle handle = acquireOne(keys[0], lease, fixedLease == null, deadline, request);
            if (handle == null) {
                throw notAcquired(keys, start);
            }
            return handle;
        }
        List<LockHandle> taken = new ArrayList<>(keys.length);
        try {
            for (String key : keys) {
                LockHandle handle = acquireOne(key, lease, fixedLease == null, deadline, request);
                if (handle == null) {
                    throw notAcquired(keys, start);
                }
                taken.add(handle);
            }
        }
        catch (Throwable ex) {
            // All or nothing, whatever went wrong (an Error too): release what was taken.
            releaseAll(taken, ex);
            throw ex;
        }
        return new MultiLockHandle(taken);
    }

    /** One key: entered again when this thread holds it and may, else taken in the store. */
    private @Nullable LockHandle acquireOne(String key, long leaseMillis, boolean renewed, long deadline,
            LockRequest request) {
        boolean reentrant = request.isReentrant();
        long holdAtLeast = request.holdAtLeastNanos();
        if (reentrant) {
            Entry mine = this.held.get(key);
            if (mine != null && mine.enterAgain(holdAtLeast)) {
                return new EngineHandle(this, mine);
            }
        }
        StoreLock lock = this.store.take(key, leaseMillis, renewed, deadline);
        if (lock == null) {
            return null;
        }
        Entry entry = new Entry(lock, reentrant, holdAtLeast);
        // The store holds the key for nobody else here, so any entry left under it belongs to a lock found lost.
        this.held.put(key, entry);
        return new EngineHandle(this, entry);
    }

    /**
     * Ends one (possibly nested) acquisition; the last one releases the key, or has the store keep it for what is
     * left of the longest holdAtLeast.
     */
    void exit(Entry entry) {
        if (!entry.exitOne()) {
            return;
        }
        this.held.remove(entry.lock.key(), entry);
        entry.lock.release(entry.lock.isLost() ? 0 : entry.keepMillis(System.nanoTime()));
    }

    /** Asks the store who holds the key of this lock name now (see {@link LockStore#inspect}). */
    @Override
    public LockInspection inspect(String name) {
        return this.store.inspect(this.store.key(name));
    }

    private static LockNotAcquiredException notAcquired(String[] keys, long start) {
        return new LockNotAcquiredException(List.of(keys), Duration.ofNanos(System.nanoTime() - start));
    }

    private static void releaseAll(List<LockHandle> taken, Throwable failure) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).close();
            }
            catch (LockException ex) {
                failure.addSuppressed(ex);
                logger.warn("Could not release lock '" + taken.get(i).key() + "' after a failed multi-key "
                        + "acquisition; it expires with its lease", ex);
            }
        }
    }
}
