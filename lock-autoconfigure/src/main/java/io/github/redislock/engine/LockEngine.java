package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;
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
 * last nested handle closes. The states of one key, lease and loss included, are in {@link Entry}.</li>
 * <li>Multi-key: the request's keys (sorted and without duplicates, see {@link LockRequest}) are taken one by
 * one in that order within the request's one wait time, all or nothing:
 * <pre>
 * TAKING(i) --key i taken or entered again--> TAKING(i+1) ... --last key--> HELD (one handle over all keys)
 * TAKING(i) --key i stays taken until the deadline, the store fails, or anything is thrown-->
 *           UNDONE (keys 0..i-1 released in reverse order, then the failure thrown)
 * </pre></li>
 * <li>holdAtLeast: counted from when the outermost acquisition got the key; nested ones sharing it may ask for
 * longer, and the longest minimum applies when the last one ends; the kept keys are remembered for the
 * endpoint ({@link KeptLocks}).</li>
 * <li>Renewal ({@link Renewer}): one batched {@link LockStore#extend} per tick, every third of the renewed lease,
 * for every renewed lock held, with its health for the endpoint.</li>
 * <li>Loss: a lock the store no longer holds, found by renewal, release, a commit check or the store itself, and
 * a renewed lock whose lease ran out by this JVM's clock with no extension confirmed, is marked lost once and
 * signalled once ({@link LossSignal}: a WARN and the {@link LockLossListener}); its handles then say so, and
 * {@code isHeld()} follows the lease by this JVM's clock.</li>
 * <li>The interrupt check before anything is sent, {@link LockNotAcquiredException} naming the store's keys, and
 * the endpoint's snapshot ({@link #state()}).</li>
 * </ul>
 * How the store waits for a taken key stays the store's own.
 */
public final class LockEngine implements LockProvider, LockInspector, LockEngineView, AutoCloseable {

    private static final Log logger = LogFactory.getLog(LockEngine.class);

    private final LockStore store;

    private final long renewedLeaseMillis;

    /** Keys this application holds now through this engine, for reentrancy and the endpoint. */
    private final Map<String, Entry> held = new ConcurrentHashMap<>();

    /** Losses the store reported for a lock the engine had not registered yet (its take still returning). */
    private final Map<String, EarlyLoss> lostEarly = new ConcurrentHashMap<>();

    private final KeptLocks kept = new KeptLocks();

    private final LockTokens tokens = new LockTokens();

    private final LossSignal loss;

    private final Renewer renewer;

    private final @Nullable ScheduledExecutorService ownScheduler;

    /**
     * An engine with a renewal thread of its own.
     * @param store where the locks are kept
     * @param renewedLease the lease of locks without a fixed lease, renewed every third of it while they are held
     * @param lossListener told when a held lock is found lost
     */
    public LockEngine(LockStore store, Duration renewedLease, LockLossListener lossListener) {
        this(store, renewedLease, lossListener, null);
    }

    /**
     * @param store where the locks are kept
     * @param renewedLease the lease of locks without a fixed lease, renewed every third of it while they are held
     * @param lossListener told when a held lock is found lost
     * @param scheduler runs renewals; {@code null} for a daemon thread of the engine's own
     */
    public LockEngine(LockStore store, Duration renewedLease, LockLossListener lossListener,
            @Nullable ScheduledExecutorService scheduler) {
        this.store = store;
        this.renewedLeaseMillis = renewedLease.toMillis();
        this.loss = new LossSignal(lossListener);
        this.ownScheduler = (scheduler == null) ? Executors.newSingleThreadScheduledExecutor((task) -> {
            Thread thread = new Thread(task, "lock-renewal");
            thread.setDaemon(true);
            return thread;
        }) : null;
        this.renewer = new Renewer(store, (scheduler != null) ? scheduler : this.ownScheduler,
                this.renewedLeaseMillis, (entry) -> lost(entry, LockLossDetection.RENEWAL));
        store.listen(this::storeLost);
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
            LockHandle handle = acquireOne(keys[0], null, lease, fixedLease == null, deadline, request);
            if (handle == null) {
                throw notAcquired(keys, start);
            }
            return handle;
        }
        List<LockHandle> taken = new ArrayList<>(keys.length);
        // One token for every key of the request.
        String token = this.tokens.next();
        try {
            for (String key : keys) {
                LockHandle handle = acquireOne(key, token, lease, fixedLease == null, deadline, request);
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

    /**
     * One key: entered again when this thread holds it and may, else taken in the store with the request's token
     * ({@code null}: a single key's, drawn only when it goes to the store).
     */
    private @Nullable LockHandle acquireOne(String key, @Nullable String token, long leaseMillis, boolean renewed,
            long deadline, LockRequest request) {
        boolean reentrant = request.isReentrant();
        long holdAtLeast = request.holdAtLeastNanos();
        if (reentrant) {
            Entry mine = this.held.get(key);
            if (mine != null && mine.enterAgain(holdAtLeast)) {
                return new EngineHandle(this, mine);
            }
        }
        StoreLock lock = this.store.take(key, (token != null) ? token : this.tokens.next(), leaseMillis, renewed,
                deadline);
        if (lock == null) {
            return null;
        }
        boolean leased = this.store.leased();
        long validNanos = leased ? this.store.validNanos(leaseMillis) : Long.MAX_VALUE;
        Entry entry = new Entry(lock, leaseMillis, renewed, validNanos, reentrant, holdAtLeast);
        // The store holds the key for nobody else here, so any entry left under it belongs to a lock found lost.
        this.held.put(key, entry);
        this.kept.taken(key);
        if (renewed && leased) {
            this.renewer.register(entry, validNanos);
        }
        if (!this.lostEarly.isEmpty()) {
            // Anything else remembered under the key was an earlier lock's, released by now.
            EarlyLoss early = this.lostEarly.remove(key);
            if (early != null && early.lock == lock) {
                lost(entry, early.how);
            }
        }
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
        this.renewer.unregister(entry);
        // A lock already found lost (and signalled) is released all the same, keeping nothing: the store leaves
        // a key that is another holder's alone.
        boolean wasHeld = entry.markReleased();
        long keepMillis = wasHeld ? entry.keepMillis(System.nanoTime()) : 0;
        boolean ours = entry.lock.release(keepMillis);
        if (!ours && wasHeld) {
            entry.lostAtRelease();
            this.loss.lost(entry, LockLossDetection.RELEASE);
        }
        else if (ours && keepMillis > 0) {
            this.kept.kept(entry, keepMillis, System.nanoTime());
        }
    }

    /** Asks the store whether it still holds the lock; marks it lost if not. */
    boolean verify(Entry entry) {
        if (entry.isLost()) {
            return false;
        }
        if (entry.lock.verify()) {
            return true;
        }
        lost(entry, LockLossDetection.COMMIT_CHECK);
        return false;
    }

    /** HELD to LOST, signalled once; nothing for a lock whose release began. */
    private void lost(Entry entry, LockLossDetection how) {
        if (entry.markLost()) {
            this.renewer.unregister(entry);
            this.loss.lost(entry, how);
        }
    }

    /**
     * The store noticed a loss by itself. A lock whose take has not returned to the engine yet is remembered
     * until it has: whichever side finds both the entry and the remembered lock marks it (once, as always).
     */
    private void storeLost(StoreLock lock, LockLossDetection how) {
        Entry entry = this.held.get(lock.key());
        if (entry != null && entry.lock == lock) {
            lost(entry, how);
            return;
        }
        EarlyLoss early = new EarlyLoss(lock, how);
        this.lostEarly.put(lock.key(), early);
        entry = this.held.get(lock.key());
        if (entry != null && entry.lock == lock && this.lostEarly.remove(lock.key(), early)) {
            lost(entry, how);
        }
    }

    private record EarlyLoss(StoreLock lock, LockLossDetection how) {
    }

    /** The random id that begins this engine's tokens (see {@link LockTokens#id}). */
    public String ownerId() {
        return this.tokens.id();
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

    /** How often renewed locks are renewed. */
    public Duration renewalPeriod() {
        return Duration.ofMillis(this.renewer.periodMillis());
    }

    /** Runs one renewal round now (tests, and callers that know a long pause just ended). */
    public void renewNow() {
        this.renewer.tick();
    }

    /** Tells the probe of failed renewal rounds; internal, for metrics. */
    @Override
    public void observe(LockEngineProbe probe) {
        this.renewer.probe(probe);
    }

    /** The store, as {@link LockStore#describe()} names it. */
    public String describe() {
        return this.store.describe();
    }

    /**
     * What this application holds and waits for now, and how renewal fares: a read-only snapshot for the
     * Actuator endpoint and gauges. It takes no lock on the hot path and sends nothing to the store.
     */
    @Override
    public LockEngineState state() {
        long nowNanos = System.nanoTime();
        Instant now = Instant.now();
        List<LockEngineState.HeldKey> keys = new ArrayList<>(this.held.size());
        for (Entry entry : this.held.values()) {
            keys.add(entry.view(nowNanos, now));
        }
        keys.sort(Comparator.comparing(LockEngineState.HeldKey::key));
        return new LockEngineState(keys, this.store.waiting(), this.renewer.health(), this.kept.view(nowNanos, now));
    }

    /** Stops renewing (held locks then expire with their lease) and closes the store. */
    @Override
    public void close() {
        this.renewer.close();
        this.store.close();
        if (this.ownScheduler != null) {
            this.ownScheduler.shutdownNow();
        }
    }
}
