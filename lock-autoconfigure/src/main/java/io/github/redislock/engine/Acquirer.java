package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockRequest;

/**
 * Takes the keys of one request for {@link LockEngine}: entered again where this thread holds them, else taken
 * in the store; several keys all or nothing within the request's one wait time; and never a lock that reached
 * the store so late that its lease has run out, or nearly, by this JVM's clock.
 * <p>
 * Fresh: a lock taken in the store is handed out only while at least a tenth of its validity
 * ({@link LockStore#validNanos}, counted from {@link StoreLock#leaseStartNanos}) is left. One that comes back
 * with less (a cold connection, a reply held up on the way, a node that answered late) was held by nobody the
 * caller could rely on: the section would start on a lock that renewal then reports lost at its first tick, or
 * that a fixed lease ends at once. It is released at once (compare-and-delete: a key already someone else's is
 * left alone) and taken again with a fresh token, while the deadline has not passed (and once in any case, so
 * that a request that does not wait gets one more try at a key it found free); when no retake is left, the
 * request fails with {@link LockNotAcquiredException}. A store without leases has nothing to run out.
 * <pre>
 * TAKING(i)  key i entered again (reentrant request, this thread holds it)      TAKING(i+1)
 * TAKING(i)  this thread holds key i as a read lock and asks to write, or holds  UNDONE, LockException (never
 *            it with another permit count ({@link LockEngine#enterAgain})        sent to the store)
 * TAKING(i)  the store takes key i, fresh                                        TAKING(i+1)
 * TAKING(i)  the store takes key i, not fresh                                    RETAKING(i): released, taken again
 *                                                                                 with a fresh token (see above)
 * TAKING(i)  key i stays taken until the deadline, or no retake is left         UNDONE, LockNotAcquiredException
 * TAKING(i)  the store fails, or anything is thrown                              UNDONE, the failure thrown
 * TAKING(n)  every key still held, those taken here still fresh                  HELD: one handle over all keys
 * TAKING(n)  a key taken here is lost or no longer fresh (a fixed lease that     UNDONE, then TAKING(0) while the
 *            ran while a later key was awaited)                                  deadline has not passed, else
 *                                                                                 LockNotAcquiredException
 * UNDONE: keys 0..i-1 released in reverse order, keeping nothing (the section never ran, so no holdAtLeast).
 * </pre>
 * A key entered again is the outer acquisition's lock: entered only while held, and not judged fresh or stale
 * here (the outer section runs on it already).
 */
final class Acquirer {

    private static final Log logger = LogFactory.getLog(Acquirer.class);

    private final LockEngine engine;

    private final LockStore store;

    private final LockTokens tokens;

    private final long renewedLeaseMillis;

    Acquirer(LockEngine engine, LockStore store, LockTokens tokens, long renewedLeaseMillis) {
        this.engine = engine;
        this.store = store;
        this.tokens = tokens;
        this.renewedLeaseMillis = renewedLeaseMillis;
    }

    /** The least a lock's validity may have left when it is handed out: a tenth of it. */
    static long marginNanos(long validNanos) {
        return validNanos / 10;
    }

    LockHandle acquire(LockRequest request) {
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
        Sharing sharing = Sharing.of(request);
        if (!this.store.supports(sharing)) {
            throw new LockException("Lock " + List.of(keys) + " asks for " + sharing.describe() + ", but "
                    + this.store.describe() + " keeps exclusive locks only");
        }
        Duration fixedLease = request.leaseTime();
        long lease = (fixedLease != null) ? fixedLease.toMillis() : this.renewedLeaseMillis;
        // Compared as deadline - now, which stays right even when the sum wraps (a wait of Long.MAX_VALUE ns).
        long validNanos = this.store.leased() ? this.store.validNanos(lease) : Long.MAX_VALUE;
        Take take = new Take(request, sharing, lease, fixedLease == null, start, start + request.waitNanos(),
                validNanos);
        if (keys.length == 1) {
            LockHandle handle = enterAgain(keys[0], take);
            handle = (handle != null) ? handle : takeFresh(keys[0], this.tokens.next(), take);
            if (handle == null) {
                throw notAcquired(keys, start);
            }
            return handle;
        }
        while (true) {
            LockHandle handle = acquireAll(keys, take);
            if (handle != null) {
                return handle;
            }
            if (take.deadline - System.nanoTime() <= 0) {
                throw notAcquired(keys, start);
            }
        }
    }

    /**
     * Every key in order, all or nothing.
     * @return the handle over all keys, or {@code null} when a key taken here went stale before the last one
     * came (all undone, to be tried again)
     * @throws LockNotAcquiredException if a key stayed taken until the deadline (all undone)
     */
    private @Nullable LockHandle acquireAll(String[] keys, Take take) {
        List<EngineHandle> taken = new ArrayList<>(keys.length);
        boolean[] fromStore = new boolean[keys.length];
        // One token for every key of the request (a key taken again gets a fresh one).
        String token = this.tokens.next();
        try {
            for (int i = 0; i < keys.length; i++) {
                EngineHandle handle = enterAgain(keys[i], take);
                if (handle == null) {
                    fromStore[i] = true;
                    handle = takeFresh(keys[i], token, take);
                }
                if (handle == null) {
                    throw notAcquired(keys, take.start);
                }
                taken.add(handle);
            }
        }
        catch (Throwable ex) {
            // All or nothing, whatever went wrong (an Error too): release what was taken.
            undo(taken, ex);
            throw ex;
        }
        if (take.validNanos != Long.MAX_VALUE) {
            long now = System.nanoTime();
            for (int i = 0; i < keys.length; i++) {
                if (fromStore[i] && !taken.get(i).entry().leaves(marginNanos(take.validNanos), now)) {
                    undo(taken, null);
                    return null;
                }
            }
        }
        return new MultiLockHandle(taken);
    }

    /** The key entered again, when the request is reentrant and this thread holds it; else {@code null}. */
    private @Nullable EngineHandle enterAgain(String key, Take take) {
        return take.request.isReentrant()
                ? this.engine.enterAgain(key, take.sharing, take.request.holdAtLeastNanos()) : null;
    }

    /**
     * The key taken in the store with the token, and taken again, with a fresh token, while it comes back stale
     * and a retake is left.
     * @return the handle, or {@code null} when the key stayed taken until the deadline or no retake was left
     */
    private @Nullable EngineHandle takeFresh(String key, String token, Take take) {
        String attempt = token;
        boolean retaken = false;
        while (true) {
            StoreLock lock = this.store.take(key, attempt, take.lease, take.renewed, take.deadline, take.sharing);
            if (lock == null) {
                return null;
            }
            // When the store returned it: where holdAtLeast counts from, and the moment it is judged fresh.
            long now = System.nanoTime();
            if (take.validNanos == Long.MAX_VALUE
                    || lock.leaseStartNanos() + take.validNanos - now >= marginNanos(take.validNanos)) {
                return this.engine.register(lock, take.sharing, take.lease, take.renewed, take.validNanos,
                        take.request, now);
            }
            discard(lock, now);
            if (retaken && take.deadline - System.nanoTime() <= 0) {
                return null;
            }
            retaken = true;
            attempt = this.tokens.next();
        }
    }

    /** Releases a lock that came back stale, never handed out: whatever is left of it in the store goes. */
    private static void discard(StoreLock lock, long now) {
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + lock.key() + "' reached the store " + (now - lock.leaseStartNanos()) / 1_000_000
                    + " ms after its request was sent, too late for its lease; released and taken again");
        }
        try {
            lock.release(0);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not release a lock that came back stale; it expires with its lease", ex);
        }
    }

    /** Releases what was taken, in reverse order, keeping nothing: the section never ran. */
    private static void undo(List<EngineHandle> taken, @Nullable Throwable failure) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).undo();
            }
            catch (LockException ex) {
                if (failure != null) {
                    failure.addSuppressed(ex);
                }
                logger.warn("Could not release lock '" + taken.get(i).key() + "' after a failed multi-key "
                        + "acquisition; it expires with its lease", ex);
            }
        }
    }

    private static LockNotAcquiredException notAcquired(String[] keys, long start) {
        return new LockNotAcquiredException(List.of(keys), Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * What one request takes with: its lease, whether renewed, when it began and its deadline
     * ({@link System#nanoTime()}), and how long a lease counts as held ({@code Long.MAX_VALUE}: a store without
     * leases).
     */
    private record Take(LockRequest request, Sharing sharing, long lease, boolean renewed, long start, long deadline,
            long validNanos) {
    }
}
