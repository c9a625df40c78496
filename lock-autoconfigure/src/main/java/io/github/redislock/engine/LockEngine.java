package io.github.redislock.engine;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

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
 * <li>Sharing: a request's mode and permit count ({@link Sharing}) go to the store with each key; a shared key
 * has one entry per holder here. A thread enters again what it holds by the rule of {@link #enterAgain}, and an
 * upgrade (a write acquisition inside its own read lock) or another permit count fails at once.</li>
 * <li>Multi-key: the request's keys (sorted and without duplicates, see {@link LockRequest}) are taken one by
 * one in that order within the request's one wait time, all or nothing; the state machine is in
 * {@link Acquirer}.</li>
 * <li>Fresh locks only: a lock the store returns with less than a tenth of its validity left by this JVM's clock
 * (counted from {@link StoreLock#leaseStartNanos}: the reply came late) is never handed out: released at once
 * and taken again within the wait time (once in any case), else {@link LockNotAcquiredException}; a multi-key
 * request whose earlier key went stale while a later one was awaited starts over ({@link Acquirer}).</li>
 * <li>holdAtLeast: counted from when the outermost acquisition got the key; nested ones sharing it may ask for
 * longer, and the longest minimum applies when the last one ends; the kept keys are remembered for the
 * endpoint ({@link KeptLocks}).</li>
 * <li>Renewal ({@link Renewer}): one batched {@link LockStore#extend} per tick, every third of the renewed lease,
 * for every renewed lock held, with its health for the endpoint; and a holder's own extension to a fixed lease
 * ({@link Extender}, {@link LockHandle#extend}) through the same store call.</li>
 * <li>Loss: a lock the store no longer holds, found by renewal, release, a commit check or the store itself, and
 * a renewed lock whose lease ran out by this JVM's clock with no extension confirmed, is marked lost once and
 * signalled once ({@link LossSignal}: a WARN and the {@link LockLossListener}); its handles then say so, and
 * {@code isHeld()} follows the lease by this JVM's clock.</li>
 * <li>The interrupt check before anything is sent, {@link LockNotAcquiredException} naming the store's keys, and
 * the endpoint's snapshot ({@link #state()}).</li>
 * </ul>
 * How the store waits for a taken key stays the store's own.
 * <p>
 * Store SPI: the one {@link LockProvider} of every store, built over any {@link LockStore} with its public
 * constructors (see the package documentation for what is supported). The Spring Boot auto-configuration
 * builds one over the application's one store; {@code RedisLockClient}, {@code RedlockClient} and lock-test's
 * {@code InProcessLockProvider} are this class with constructors that build their store, and nothing more.
 * Subclasses may add constructors only: every method is final.
 */
public class LockEngine implements LockProvider, AutoCloseable {

    private final LockStore store;

    private final long renewedLeaseMillis;

    /** Keys this application holds now through this engine, for reentrancy and the endpoint. */
    private final HeldEntries held = new HeldEntries();

    /** Losses the store reported for a lock the engine had not registered yet (its take still returning). */
    private final EarlyLosses lostEarly = new EarlyLosses();

    private final KeptLocks kept = new KeptLocks();

    private final LockTokens tokens = new LockTokens();

    private final LossSignal loss;

    private final Acquirer acquirer;

    private final Renewer renewer;

    private final Extender extender;

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
        this.ownScheduler = (scheduler == null)
                ? Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("lock-renewal")) : null;
        this.renewer = new Renewer(store, (scheduler != null) ? scheduler : this.ownScheduler,
                this.renewedLeaseMillis, (entry) -> lost(entry, LockLossDetection.RENEWAL));
        this.acquirer = new Acquirer(this, store, this.tokens, this.renewedLeaseMillis);
        this.extender = new Extender(store, this.renewer, this::lost);
        store.listen(this::storeLost);
    }

    /**
     * Takes every key of the request, one by one in the request's order, within its one wait time; all or
     * nothing; never a lock whose lease has (nearly) run out by the time the store returned it (see
     * {@link Acquirer}).
     * @throws LockNotAcquiredException if a key stayed taken for the whole wait time, or every take of it came
     * back stale (nothing is then held)
     * @throws LockException if the store fails, a key is refused, or the thread is interrupted (nothing is then
     * held)
     */
    @Override
    public final LockHandle acquire(LockRequest request) {
        return this.acquirer.acquire(request);
    }

    /**
     * HELD(n) to HELD(n+1): a nested handle when this thread holds the key and may enter it; else {@code null}.
     * What a thread holds decides what it may enter: a write lock admits nested write and read acquisitions; a
     * read lock nested read ones; a semaphore's permit nested acquisitions of the same semaphore (one permit
     * either way).
     * @throws LockException at once, holding nothing new, for a write acquisition inside this thread's read lock
     * (an upgrade: it would wait for that read lock forever) and for another permit count than the one held
     */
    @Nullable EngineHandle enterAgain(String key, Sharing sharing, long holdAtLeastNanos) {
        Entry mine = this.held.ownedByCurrentThread(key);
        if (mine == null) {
            return null;
        }
        if (!mine.sharing.sharesKeyWith(sharing)) {
            throw sharing.mismatch(key, mine.sharing);
        }
        if (mine.sharing.isRead() && !sharing.isRead()) {
            throw new LockException("Lock '" + key + "' is held by this thread as a read lock; a write lock on it "
                    + "now (an upgrade) would wait for that read lock forever, so it is refused: take the write lock "
                    + "from the start (a write lock admits nested read locks), or release the read lock first");
        }
        return mine.enterAgain(holdAtLeastNanos) ? new EngineHandle(this, mine) : null;
    }

    /**
     * (free) to HELD(1): a lock the store just took, at {@code takenAtNanos}, registered for reentrancy, renewal,
     * loss and the endpoint.
     */
    EngineHandle register(StoreLock lock, Sharing sharing, long leaseMillis, boolean renewed, long validNanos,
            LockRequest request, long takenAtNanos) {
        Entry entry = new Entry(lock, sharing, leaseMillis, renewed, validNanos, request.isReentrant(),
                request.holdAtLeastNanos(), takenAtNanos);
        this.held.add(entry);
        this.kept.taken(lock.key());
        if (renewed && validNanos != Long.MAX_VALUE) {
            this.renewer.register(entry, validNanos);
        }
        LockLossDetection early = this.lostEarly.remove(lock);
        if (early != null) {
            lost(entry, early);
        }
        return new EngineHandle(this, entry);
    }

    /**
     * Ends one (possibly nested) acquisition; the last one releases the key, or has the store keep it for what is
     * left of the longest holdAtLeast. An acquisition {@code undone} (a multi-key request that failed or starts
     * over, whose section never ran) keeps nothing, and a key found no longer ours then is not reported lost:
     * the caller never had it.
     */
    void exit(Entry entry, boolean undone) {
        if (!entry.exitOne()) {
            return;
        }
        this.held.remove(entry);
        this.renewer.unregister(entry);
        // A lock already found lost (and signalled) is released all the same, keeping nothing: the store leaves
        // a key that is another holder's alone.
        boolean wasHeld = entry.markReleased();
        long keepMillis = (wasHeld && !undone) ? entry.keepMillis(System.nanoTime()) : 0;
        boolean ours = entry.lock.release(keepMillis);
        if (!ours && wasHeld && !undone) {
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

    /** Gives the lock a fixed lease from now, or says it is lost: see {@link Extender}. */
    boolean extend(Entry entry, Duration lease, Duration holdAtLeast) {
        Extender.check(lease, holdAtLeast);
        return this.extender.extend(entry, lease.toMillis(), holdAtLeast.toNanos());
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
        Entry entry = this.held.of(lock);
        if (entry != null) {
            lost(entry, how);
            return;
        }
        this.lostEarly.remember(lock, how);
        entry = this.held.of(lock);
        if (entry != null && this.lostEarly.remove(lock) != null) {
            lost(entry, how);
        }
    }

    /** The random id that begins this engine's tokens (see {@link LockTokens#id}). */
    public final String ownerId() {
        return this.tokens.id();
    }

    /**
     * Names this instance in the store's instance registry, so that the holder view of every application can name
     * the holder of the keys this engine holds (see {@link LockStore#publishInstance}); call once, before locks
     * are taken.
     */
    public final void publishInstance(InstanceInfo self) {
        this.store.publishInstance(self, ownerId());
    }

    /**
     * Who holds the lock of this name now, whichever application: the holder view behind
     * {@code GET /actuator/redislocks/{key}} (see {@link LockStore#inspect}).
     * @param name the lock name as the application gives it; the key prefix is added and the key rules checked
     * @throws LockException if the name makes a key the store refuses, or the store cannot be reached
     */
    public final LockInspection inspect(String name) {
        return this.store.inspect(this.store.key(name));
    }

    /** How often renewed locks are renewed. */
    public final Duration renewalPeriod() {
        return Duration.ofMillis(this.renewer.periodMillis());
    }

    /** Runs one renewal round now (tests, and callers that know a long pause just ended). */
    public final void renewNow() {
        this.renewer.tick();
    }

    /** Tells the probe what only the engine and its store see (failed renewal rounds, hand-offs), for metrics. */
    public final void observe(LockEngineProbe probe) {
        this.renewer.probe(probe);
        this.store.observe(probe);
    }

    /** Whether its store keeps keys shared this way ({@link LockStore#supports}). */
    public final boolean supports(Sharing sharing) {
        return this.store.supports(sharing);
    }

    /** The store, as {@link LockStore#describe()} names it. */
    public final String describe() {
        return this.store.describe();
    }

    /**
     * What this application holds and waits for now, and how renewal fares: a read-only snapshot for the
     * Actuator endpoint and gauges. It takes no lock on the hot path and sends nothing to the store.
     */
    public final LockEngineState state() {
        long nowNanos = System.nanoTime();
        Instant now = Instant.now();
        List<Entry> entries = this.held.all();
        List<LockEngineState.HeldKey> keys = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            keys.add(entry.view(nowNanos, now));
        }
        keys.sort(Comparator.comparing(LockEngineState.HeldKey::key));
        return new LockEngineState(keys, this.store.waiting(), this.renewer.health(), this.kept.view(nowNanos, now));
    }

    /** Stops renewing (held locks then expire with their lease) and closes the store. */
    @Override
    public final void close() {
        this.renewer.close();
        this.store.close();
        if (this.ownScheduler != null) {
            this.ownScheduler.shutdownNow();
        }
    }

    @Override
    public final String toString() {
        return getClass().getSimpleName() + "[" + describe() + "]";
    }
}
