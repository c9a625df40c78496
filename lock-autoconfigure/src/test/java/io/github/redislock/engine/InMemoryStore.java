package io.github.redislock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockException;
import io.github.redislock.LockLossDetection;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store in this JVM's memory, for the engine's own transitions: keys with leases on {@link System#nanoTime()},
 * fencing tokens, compare-and-extend, compare-and-release and keeping (holdAtLeast), with no waiting (a taken key
 * is refused at once, whatever the deadline). It records what the engine asks of it, so that what reaches the
 * store is counted, not guessed, and a test can take a key away, fail the next extension, or report a loss as a
 * store that notices one by itself would.
 */
final class InMemoryStore implements LockStore {

    final List<String> takes = new CopyOnWriteArrayList<>();

    final List<String> releases = new CopyOnWriteArrayList<>();

    /** The keys of each extension call, in order. */
    final List<List<String>> extensions = new CopyOnWriteArrayList<>();

    private final boolean leased;

    private final Map<String, Held> keys = new HashMap<>();

    private long fences;

    private @Nullable String failing;

    /** Keys whose extension the store answers as unknown, neither extending nor dropping them. */
    private final Set<String> unknown = new HashSet<>();

    private @Nullable RuntimeException extensionFailure;

    private @Nullable Runnable duringExtension;

    private @Nullable StoreListener listener;

    private @Nullable String loseOnTake;

    private long takenLateByNanos;

    private long nextLateByNanos;

    private final Map<String, Runnable> duringTake = new HashMap<>();

    private long outlastNanos;

    InMemoryStore(boolean leased) {
        this.leased = leased;
    }

    @Override
    public String key(String name) {
        return name;
    }

    @Override
    public synchronized @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadline) {
        this.takes.add(key);
        if (key.equals(this.failing)) {
            throw new OutOfMemoryError("planted");
        }
        Held current = this.keys.get(key);
        long now = System.nanoTime();
        if (current != null && (!this.leased || now - current.expiresAt < 0)) {
            return null;
        }
        Runnable during = this.duringTake.remove(key);
        if (during != null) {
            during.run();
            now = System.nanoTime();
        }
        Held held = new Held(key, ++this.fences, now - this.takenLateByNanos - this.nextLateByNanos, leaseMillis);
        this.nextLateByNanos = 0;
        held.expiresAt += this.outlastNanos;
        this.keys.put(key, held);
        if (key.equals(this.loseOnTake)) {
            // A store that finds the lock gone before its take has even returned (a Redis lock passed on here
            // whose extension without waiting came back "not ours").
            this.loseOnTake = null;
            this.keys.remove(key);
            this.listener.lost(held, LockLossDetection.SESSION);
        }
        return held;
    }

    @Override
    public boolean leased() {
        return this.leased;
    }

    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        Runnable during;
        synchronized (this) {
            List<String> names = new ArrayList<>();
            locks.forEach((lock) -> names.add(lock.key()));
            this.extensions.add(names);
            if (this.extensionFailure != null) {
                RuntimeException failure = this.extensionFailure;
                this.extensionFailure = null;
                throw failure;
            }
            during = this.duringExtension;
            this.duringExtension = null;
        }
        if (during != null) {
            during.run();
        }
        synchronized (this) {
            Extension[] extended = new Extension[locks.size()];
            long now = System.nanoTime();
            for (int i = 0; i < extended.length; i++) {
                Held held = (Held) locks.get(i);
                if (this.unknown.contains(held.key)) {
                    extended[i] = Extension.UNKNOWN;
                }
                else if (this.keys.get(held.key) == held && now - held.expiresAt < 0) {
                    held.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(leaseMillis) + this.outlastNanos;
                    extended[i] = Extension.EXTENDED;
                }
                else {
                    extended[i] = Extension.NOT_HELD;
                }
            }
            return extended;
        }
    }

    @Override
    public void listen(StoreListener listener) {
        assertThat(this.listener).as("listened to once").isNull();
        this.listener = listener;
    }

    @Override
    public String describe() {
        return "in memory";
    }

    @Override
    public void close() {
    }

    synchronized void takeForSomeoneElse(String key) {
        this.keys.put(key, new Held(key, ++this.fences, System.nanoTime(), TimeUnit.HOURS.toMillis(1)));
    }

    /** The key is gone from the store (expired, deleted by someone): found by the next extension, check or release. */
    synchronized void lose(String key) {
        this.keys.remove(key);
    }

    /** The store notices by itself that it no longer holds the key, and says so. */
    void loseAndReport(String key) {
        Held held;
        synchronized (this) {
            held = this.keys.remove(key);
        }
        this.listener.lost(held, LockLossDetection.SESSION);
    }

    synchronized void loseOnTake(String key) {
        this.loseOnTake = key;
    }

    /** Takes from now on as a take that waited this long for a slow node: with that much less of the lease left. */
    synchronized void takeLateBy(Duration late) {
        this.takenLateByNanos = late.toNanos();
    }

    /** Takes the next lock as a take whose reply came this late: with that much less of the lease left. */
    synchronized void takeNextLateBy(Duration late) {
        this.nextLateByNanos = late.toNanos();
    }

    /** Runs the action inside the next take of the key, before the store takes it (a take that is slow to come). */
    synchronized void duringNextTakeOf(String key, Runnable action) {
        this.duringTake.put(key, action);
    }

    /**
     * Keeps leases this much longer than the engine counts them from now on: as a store whose copies outlive the
     * lease the engine could confirm (Redlock nodes a renewal still reaches after the majority is gone; a Redis
     * that ran an extension whose answer never came back).
     */
    synchronized void outlastLeasesBy(Duration longer) {
        this.outlastNanos = longer.toNanos();
    }

    synchronized void failOn(String key) {
        this.failing = key;
    }

    /** Answers the key's extensions as unknown from now on, as a store that cannot reach a majority for it. */
    synchronized void answerUnknownFor(String key) {
        this.unknown.add(key);
    }

    synchronized void failNextExtension(RuntimeException failure) {
        this.extensionFailure = failure;
    }

    /** Runs the action inside the next extension call, after the engine sent it and before it is answered. */
    synchronized void duringNextExtension(Runnable action) {
        this.duringExtension = action;
    }

    synchronized Map<String, Held> holders() {
        return Map.copyOf(this.keys);
    }

    private synchronized boolean release(Held held, long keepMillis) {
        this.releases.add(held.key + " kept " + keepMillis);
        if (this.keys.get(held.key) != held || (this.leased && System.nanoTime() - held.expiresAt >= 0)) {
            return false;
        }
        if (keepMillis > 0) {
            this.keys.put(held.key, new Held(held.key, held.fence, System.nanoTime(), keepMillis));
        }
        else {
            this.keys.remove(held.key);
        }
        return true;
    }

    final class Held implements StoreLock {

        private final String key;

        private final long fence;

        private final long startNanos;

        private volatile long expiresAt;

        private volatile boolean released;

        Held(String key, long fence, long startNanos, long leaseMillis) {
            this.key = key;
            this.fence = fence;
            this.startNanos = startNanos;
            this.expiresAt = startNanos + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        }

        @Override
        public String key() {
            return this.key;
        }

        @Override
        public String token() {
            return "t:" + this.fence;
        }

        @Override
        public long fencingToken() {
            return this.fence;
        }

        @Override
        public long leaseStartNanos() {
            return this.startNanos;
        }

        @Override
        public boolean verify() {
            synchronized (InMemoryStore.this) {
                return InMemoryStore.this.keys.get(this.key) == this
                        && (!InMemoryStore.this.leased || System.nanoTime() - this.expiresAt < 0);
            }
        }

        @Override
        public boolean release(long keepMillis) {
            assertThat(this.released).as("released once").isFalse();
            this.released = true;
            return InMemoryStore.this.release(this, keepMillis);
        }
    }
}
