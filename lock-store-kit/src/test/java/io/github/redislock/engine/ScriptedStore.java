package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockLossDetection;
import io.github.redislock.storekit.ForwardingStore;
import io.github.redislock.test.InMemoryStoreFixture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-test's in-memory store, with what the engine's own tests need around it. Keys are the names (no prefix),
 * leases run on this JVM's clock, fencing tokens count from 1 per key. Every take, release and extension is
 * recorded, so that what reaches the store is counted, not guessed; and a test scripts answers: a take that comes
 * back late, fails, or finds its lock reported lost before it returns; an extension that fails, is answered
 * unknown, or is slow; a key taken by someone else, lost behind its holder's back, or reported lost by the store
 * itself; leases the store keeps longer than the engine counts them.
 */
class ScriptedStore extends ForwardingStore {

    final List<String> takes = new CopyOnWriteArrayList<>();

    final List<String> releases = new CopyOnWriteArrayList<>();

    /** The keys of each extension call, in order. */
    final List<List<String>> extensions = new CopyOnWriteArrayList<>();

    private final InMemoryStoreFixture backend;

    private final boolean leased;

    /** The last lock handed out per key. */
    private final Map<String, StoreLock> taken = new ConcurrentHashMap<>();

    private final Set<StoreLock> released = ConcurrentHashMap.newKeySet();

    /** Keys whose extension the store answers as unknown, neither extending nor dropping them. */
    private final Set<String> unknown = ConcurrentHashMap.newKeySet();

    private final Map<String, Runnable> duringTake = new ConcurrentHashMap<>();

    private volatile @Nullable String failing;

    private volatile @Nullable String loseOnTake;

    private volatile @Nullable RuntimeException extensionFailure;

    private volatile @Nullable Runnable duringExtension;

    private volatile long takenLateByNanos;

    private volatile long nextLateByNanos;

    private volatile long outlastMillis;

    private ScriptedStore(InMemoryStoreFixture backend, boolean leased) {
        super(backend.newStore());
        this.backend = backend;
        this.leased = leased;
    }

    /** Locks that expire unless extended. */
    static ScriptedStore withLeases() {
        return new ScriptedStore(new InMemoryStoreFixture("", UnaryOperator.identity()), true);
    }

    /** Locks that expire unless extended, in a store written before shared keys: exclusive locks only. */
    static ScriptedStore exclusiveOnly() {
        return new ScriptedStore(new InMemoryStoreFixture("", UnaryOperator.identity()), true) {

            @Override
            public boolean supports(Sharing sharing) {
                return sharing.isExclusive();
            }
        };
    }

    /** Locks that last until released, as a session store's: the engine never extends them. */
    static ScriptedStore withoutLeases() {
        return new ScriptedStore(new InMemoryStoreFixture("", UnaryOperator.identity()), false);
    }

    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos) {
        this.takes.add(key);
        if (key.equals(this.failing)) {
            throw new OutOfMemoryError("planted");
        }
        Runnable during = this.duringTake.remove(key);
        if (during != null) {
            during.run();
        }
        StoreLock lock = super.take(key, token, storeLease(leaseMillis), renewed, deadlineNanos);
        if (lock != null) {
            this.taken.put(key, lock);
            if (key.equals(this.loseOnTake)) {
                // A store that finds the lock gone before its take has even returned (a Redis lock passed on here
                // whose extension without waiting came back "not ours").
                this.loseOnTake = null;
                this.backend.loseLock(this, key);
                listener().lost(lock, LockLossDetection.SESSION);
            }
        }
        return lock;
    }

    /** The lease the store keeps: longer than the engine's by {@link #outlastLeasesBy}; without leases, an hour. */
    private long storeLease(long leaseMillis) {
        return this.leased ? leaseMillis + this.outlastMillis : TimeUnit.HOURS.toMillis(1);
    }

    @Override
    protected long leaseStartNanos(StoreLock lock) {
        long late = this.takenLateByNanos + this.nextLateByNanos;
        this.nextLateByNanos = 0;
        return lock.leaseStartNanos() - late;
    }

    @Override
    public boolean leased() {
        return this.leased;
    }

    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        List<String> keys = new ArrayList<>();
        locks.forEach((lock) -> keys.add(lock.key()));
        this.extensions.add(keys);
        RuntimeException failure = this.extensionFailure;
        if (failure != null) {
            this.extensionFailure = null;
            throw failure;
        }
        Runnable during = this.duringExtension;
        this.duringExtension = null;
        if (during != null) {
            during.run();
        }
        List<StoreLock> answered = new ArrayList<>();
        locks.stream().filter((lock) -> !this.unknown.contains(lock.key())).forEach(answered::add);
        Extension[] answers = super.extend(answered, storeLease(leaseMillis));
        Extension[] extended = new Extension[locks.size()];
        for (int i = 0, j = 0; i < extended.length; i++) {
            extended[i] = this.unknown.contains(locks.get(i).key()) ? Extension.UNKNOWN : answers[j++];
        }
        return extended;
    }

    @Override
    protected boolean release(Lock lock, long keepMillis) {
        assertThat(this.released.add(lock)).as("released once").isTrue();
        this.releases.add(lock.key() + " kept " + keepMillis);
        return super.release(lock, keepMillis);
    }

    /** The last lock the store handed out for the key. */
    StoreLock taken(String key) {
        return this.taken.get(key);
    }

    /** Of these keys, those the store holds or keeps now, with their fencing tokens. */
    Map<String, Long> holders(String... keys) {
        Map<String, Long> holders = new LinkedHashMap<>();
        for (String key : keys) {
            LockInspection seen = inspect(key);
            if (seen.state() != LockInspection.State.FREE) {
                holders.put(key, seen.fencingToken());
            }
        }
        return holders;
    }

    /** The key is taken, for an hour, by an acquisition of someone else. */
    void takeForSomeoneElse(String key) {
        assertThat(this.store.take(key, "someone else", TimeUnit.HOURS.toMillis(1), false, System.nanoTime()))
            .isNotNull();
    }

    /** The key is gone from the store (expired, deleted by someone): found by the next extension, check or release. */
    void lose(String key) {
        this.backend.loseLock(this, key);
    }

    /** The store notices by itself that it no longer holds the key, and says so. */
    void loseAndReport(String key) {
        lose(key);
        listener().lost(this.taken.get(key), LockLossDetection.SESSION);
    }

    void loseOnTake(String key) {
        this.loseOnTake = key;
    }

    /** Takes from now on as a take that waited this long for a slow node: with that much less of the lease left. */
    void takeLateBy(Duration late) {
        this.takenLateByNanos = late.toNanos();
    }

    /** Takes the next lock as a take whose reply came this late: with that much less of the lease left. */
    void takeNextLateBy(Duration late) {
        this.nextLateByNanos = late.toNanos();
    }

    /** Runs the action inside the next take of the key, before the store takes it (a take that is slow to come). */
    void duringNextTakeOf(String key, Runnable action) {
        this.duringTake.put(key, action);
    }

    /**
     * Keeps leases this much longer than the engine counts them from now on: as a store whose copies outlive the
     * lease the engine could confirm (Redlock nodes a renewal still reaches after the majority is gone; a Redis
     * that ran an extension whose answer never came back).
     */
    void outlastLeasesBy(Duration longer) {
        this.outlastMillis = longer.toMillis();
    }

    void failOn(String key) {
        this.failing = key;
    }

    /** Answers the key's extensions as unknown from now on, as a store that cannot reach a majority for it. */
    void answerUnknownFor(String key) {
        this.unknown.add(key);
    }

    void failNextExtension(RuntimeException failure) {
        this.extensionFailure = failure;
    }

    /** Runs the action inside the next extension call, after the engine sent it and before it is answered. */
    void duringNextExtension(Runnable action) {
        this.duringExtension = action;
    }
}
