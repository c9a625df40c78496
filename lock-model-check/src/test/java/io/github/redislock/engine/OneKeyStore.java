package io.github.redislock.engine;

import java.util.Arrays;
import java.util.List;

import io.github.redislock.LockLossDetection;
import org.jspecify.annotations.Nullable;

/**
 * A store of one key in this JVM for the engine's model checks: the first take gets it (fencing token 1), later
 * takes find it taken; a renewal round gets the answer it is set up with; the lock can be lost behind its holder's
 * back ({@link #forget}), which the store then reports as a store would that notices a loss by itself. Plain fields
 * under this object's monitor, so that the model checker sees every step.
 */
final class OneKeyStore implements LockStore {

    private final Extension renewal;

    private @Nullable StoreListener listener;

    private @Nullable Lock taken;

    private boolean forgotten;

    private int releases;

    /** @param renewal what every renewal round answers for the lock */
    OneKeyStore(Extension renewal) {
        this.renewal = renewal;
    }

    /** The lock once taken, waiting (spinning, which the model checker recognises) until it is. */
    StoreLock awaitTaken() {
        while (true) {
            synchronized (this) {
                if (this.taken != null) {
                    return this.taken;
                }
            }
            Thread.yield();
        }
    }

    /** The key is gone behind its holder's back, and the store says so. */
    void forget() {
        StoreLock lock = awaitTaken();
        StoreListener told;
        synchronized (this) {
            this.forgotten = true;
            told = this.listener;
        }
        told.lost(lock, LockLossDetection.RENEWAL);
    }

    synchronized int releases() {
        return this.releases;
    }

    @Override
    public String key(String name) {
        return name;
    }

    @Override
    public synchronized @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed,
            long deadlineNanos) {
        if (this.taken != null) {
            return null;
        }
        this.taken = new Lock(key, token, System.nanoTime());
        return this.taken;
    }

    @Override
    public boolean leased() {
        return true;
    }

    @Override
    public synchronized Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        Extension[] answers = new Extension[locks.size()];
        Arrays.fill(answers, this.forgotten ? Extension.NOT_HELD : this.renewal);
        return answers;
    }

    @Override
    public synchronized void listen(StoreListener listener) {
        this.listener = listener;
    }

    @Override
    public String describe() {
        return "one key in memory";
    }

    @Override
    public void close() {
    }

    private final class Lock implements StoreLock {

        private final String key;

        private final String token;

        private final long startNanos;

        Lock(String key, String token, long startNanos) {
            this.key = key;
            this.token = token;
            this.startNanos = startNanos;
        }

        @Override
        public String key() {
            return this.key;
        }

        @Override
        public String token() {
            return this.token;
        }

        @Override
        public long fencingToken() {
            return 1;
        }

        @Override
        public long leaseStartNanos() {
            return this.startNanos;
        }

        @Override
        public boolean verify() {
            synchronized (OneKeyStore.this) {
                return !OneKeyStore.this.forgotten;
            }
        }

        @Override
        public boolean release(long keepMillis) {
            synchronized (OneKeyStore.this) {
                OneKeyStore.this.releases++;
                return !OneKeyStore.this.forgotten;
            }
        }
    }
}
