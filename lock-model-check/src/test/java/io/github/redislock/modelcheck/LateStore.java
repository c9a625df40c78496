package io.github.redislock.modelcheck;

import java.util.List;
import java.util.Map;

import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;
import org.jspecify.annotations.Nullable;

/**
 * A store as it is, whose answer to a take can be held back once ({@link #answerNextTakeLate}): the key is taken in
 * the backend at once, and the reply reaches the engine only that much later, as over a slow link or from a node
 * that answered late. With {@link #seedLostReleases} it carries a defect for the checker to find: its locks' releases
 * say they released the key and leave it in the backend.
 */
final class LateStore implements LockStore {

    private final LockStore store;

    private volatile long lateMillis;

    private volatile boolean lostReleases;

    LateStore(LockStore store) {
        this.store = store;
    }

    void answerNextTakeLate(long millis) {
        this.lateMillis = millis;
    }

    /** The seeded defect: every lock taken from now on says it was released, and stays in the backend. */
    void seedLostReleases() {
        this.lostReleases = true;
    }

    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos) {
        return late(this.store.take(key, token, leaseMillis, renewed, deadlineNanos));
    }

    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos,
            Sharing sharing) {
        return late(this.store.take(key, token, leaseMillis, renewed, deadlineNanos, sharing));
    }

    private @Nullable StoreLock late(@Nullable StoreLock lock) {
        long millis = this.lateMillis;
        if (lock != null && millis > 0) {
            this.lateMillis = 0;
            try {
                // The reply on its way: what is simulated is the passing of time.
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        return (lock != null && this.lostReleases) ? new KeptOnRelease(lock) : lock;
    }

    /** A lock whose release does nothing in the backend and says it released (the seeded defect). */
    private record KeptOnRelease(StoreLock lock) implements StoreLock {

        @Override
        public String key() {
            return this.lock.key();
        }

        @Override
        public String token() {
            return this.lock.token();
        }

        @Override
        public long fencingToken() {
            return this.lock.fencingToken();
        }

        @Override
        public long leaseStartNanos() {
            return this.lock.leaseStartNanos();
        }

        @Override
        public boolean isValid() {
            return this.lock.isValid();
        }

        @Override
        public boolean verify() {
            return this.lock.verify();
        }

        @Override
        public boolean release(long keepMillis) {
            return true;
        }
    }

    @Override
    public String key(String name) {
        return this.store.key(name);
    }

    @Override
    public boolean supports(Sharing sharing) {
        return this.store.supports(sharing);
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
        return this.store.extend(locks, leaseMillis);
    }

    @Override
    public void listen(StoreListener listener) {
        this.store.listen(listener);
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
    public void publishInstance(InstanceInfo self, String ownerId) {
        this.store.publishInstance(self, ownerId);
    }

    @Override
    public LockInspection inspect(String key) {
        return this.store.inspect(key);
    }

    @Override
    public void close() {
        this.store.close();
    }
}
