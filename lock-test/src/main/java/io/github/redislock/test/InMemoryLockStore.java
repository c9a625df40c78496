package io.github.redislock.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.KeyRules;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.Sharing;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;

/**
 * Locks kept in this JVM's memory: the store under the {@code LockEngine} of {@link AutoConfigureInProcessLocks}
 * (a bean) and of an {@link InProcessLockProvider}, so that what the engine does for Redis (reentrancy, multi-key,
 * holdAtLeast, renewal, loss, the endpoint's state) it does here too. Leases are counted by this JVM's clock, as Redis counts them by its own: a lock whose lease
 * runs out unextended is free, and its holder finds it lost at its next renewal, check or release.
 * <p>
 * One {@link ReentrantLock} guards the map of {@link KeySlot}s and everything in them; nothing blocks while holding
 * it except a waiting take, which releases it while it waits. Each key goes through the states of {@link KeySlot}:
 * write, read and semaphore keys, every holder with a lease of its own. The line of a key is fair: a take is
 * admitted only when every take that came before it would be admitted too (readers behind a waiting writer wait);
 * each waiting take waits on a condition of its own, and is woken when a holder is released, kept or extended,
 * or when a take leaves the line. A blocked take also wakes by itself when the earliest lease (or keep) ends, so
 * a lock whose holder stopped extending it passes on without anybody telling. Fencing tokens count up per key
 * from 1, across every kind, and are never reused, also across the key being FREE; a release, extension or check
 * compares both the token and the fencing token with a holder's, so an old holder can never touch a later one's
 * lock.
 */
public final class InMemoryLockStore implements LockStore {

    private final String keyPrefix;

    private final ReentrantLock lock;

    /** Every key ever taken, with its last fencing token (as Redis keeps a key's counter); guarded by lock. */
    private final Map<String, KeySlot> slots;

    /** The instances whose tokens this store holds. */
    private final InstanceNames instances;

    /** Guarded by lock. */
    private boolean closed;

    /** @param keyPrefix put in front of every key, like {@code redis-lock.key-prefix} */
    public InMemoryLockStore(String keyPrefix) {
        this.keyPrefix = keyPrefix;
        this.lock = new ReentrantLock();
        this.slots = new HashMap<>();
        this.instances = new InstanceNames();
    }

    /** Over the keys and registry of {@code other}: another application (the store kit's); closes on its own. */
    InMemoryLockStore(String keyPrefix, InMemoryLockStore other) {
        this.keyPrefix = keyPrefix;
        this.lock = other.lock;
        this.slots = other.slots;
        this.instances = other.instances;
    }

    /**
     * The key rules the Redis stores apply too ({@link KeyRules}: a length limit, no {@code ~lock~}), so that tests
     * refuse what they do.
     */
    @Override
    public String key(String name) {
        return KeyRules.checked(this.keyPrefix, name);
    }

    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos) {
        return take(key, token, leaseMillis, renewed, deadlineNanos, Sharing.EXCLUSIVE);
    }

    /** Every sharing: write, read and semaphore keys, fair as {@link KeySlot} says. */
    @Override
    public boolean supports(Sharing sharing) {
        return true;
    }

    @Override
    public @Nullable StoreLock take(String key, String token, long leaseMillis, boolean renewed, long deadlineNanos,
            Sharing sharing) {
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        this.lock.lock();
        try {
            KeySlot slot = this.slots.computeIfAbsent(key, KeySlot::new);
            Sharing inUse = slot.inUseAs(System.nanoTime());
            if (inUse != null && !inUse.sharesKeyWith(sharing)) {
                throw sharing.mismatch(key, inUse);
            }
            KeySlot.Waiter me = null;
            try {
                while (true) {
                    if (this.closed) {
                        throw new LockException("The in-process lock store is closed; lock '" + key + "' not taken");
                    }
                    long now = System.nanoTime();
                    if (slot.admits(me, sharing, now)) {
                        long fence = slot.take(token, sharing, now, leaseNanos);
                        return new InMemoryLock(this, key, token, fence, now);
                    }
                    long left = deadlineNanos - now;
                    if (left <= 0) {
                        return null;
                    }
                    if (me == null) {
                        me = new KeySlot.Waiter(sharing, this.lock.newCondition());
                        slot.line.add(me);
                    }
                    if (slot.state(now) != KeySlot.State.FREE) {
                        // Nobody tells when a lease or keep ends, so wake then by itself.
                        left = Math.min(left, slot.earliestEndNanos() - now);
                    }
                    me.wake().awaitNanos(left);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new LockException("Interrupted while waiting for lock '" + key + "'", ex);
            }
            finally {
                if (me != null) {
                    slot.leave(me);
                }
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    @Override
    public boolean leased() {
        return true;
    }

    /** Extends each lock whose key it still holds; one pass under the store's lock. */
    @Override
    public Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        Extension[] extended = new Extension[locks.size()];
        this.lock.lock();
        try {
            long now = System.nanoTime();
            for (int i = 0; i < extended.length; i++) {
                StoreLock held = locks.get(i);
                KeySlot slot = this.slots.get(held.key());
                KeySlot.Holder holder = (slot != null) ? slot.holder(held.token(), held.fencingToken(), now) : null;
                if (holder != null) {
                    slot.extend(holder, now, leaseNanos);
                    // Waiters wait for the end of the earliest lease; it may have just moved.
                    slot.signalAll();
                }
                // Never UNKNOWN: memory always answers.
                extended[i] = (holder != null) ? Extension.EXTENDED : Extension.NOT_HELD;
            }
        }
        finally {
            this.lock.unlock();
        }
        return extended;
    }

    /** Releases, or keeps for {@code keepMillis}, if the key is still this lock's; false otherwise. */
    boolean release(InMemoryLock held, long keepMillis) {
        this.lock.lock();
        try {
            long now = System.nanoTime();
            KeySlot slot = this.slots.get(held.key());
            KeySlot.Holder holder = (slot != null) ? slot.holder(held.token(), held.fencingToken(), now) : null;
            if (holder == null) {
                return false;
            }
            if (keepMillis > 0) {
                slot.keep(holder, now, TimeUnit.MILLISECONDS.toNanos(keepMillis));
            }
            else {
                slot.free(holder);
            }
            // Kept too: waiters then wait, with a timeout, for the keep to end.
            slot.signalAll();
            return true;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Whether the key is still this lock's. */
    boolean verify(InMemoryLock held) {
        this.lock.lock();
        try {
            KeySlot slot = this.slots.get(held.key());
            return slot != null && slot.holder(held.token(), held.fencingToken(), System.nanoTime()) != null;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The state of the key (prefix included) now; FREE for a key never taken. */
    KeySlot.State state(String key) {
        this.lock.lock();
        try {
            KeySlot slot = this.slots.get(key);
            return (slot != null) ? slot.state(System.nanoTime()) : KeySlot.State.FREE;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The key is FREE at once, as a Redis key an operator deletes; its holder finds the loss as on Redis. */
    void drop(String key) {
        this.lock.lock();
        try {
            KeySlot slot = this.slots.get(key);
            if (slot != null) {
                slot.drop();
                slot.signalAll();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /**
     * Nothing to report: the store loses a lock only when its lease ends, which the engine finds at the renewal,
     * check or release that follows, as it does on Redis.
     */
    @Override
    public void listen(StoreListener listener) {
    }

    @Override
    public String describe() {
        return "in-process (this JVM only)";
    }

    /** How many takes wait per key now. */
    @Override
    public Map<String, Integer> waiting() {
        this.lock.lock();
        try {
            Map<String, Integer> waiting = new TreeMap<>();
            for (KeySlot slot : this.slots.values()) {
                if (!slot.line.isEmpty()) {
                    waiting.put(slot.key, slot.line.size());
                }
            }
            return waiting;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Names the instance whose tokens begin with {@code ownerId}, for {@link #inspect}. */
    @Override
    public void publishInstance(InstanceInfo self, String ownerId) {
        this.instances.publish(self, ownerId);
    }

    /**
     * Who holds the key: FREE, HELD (the holder named from its token's id, {@code UNKNOWN} for an id no instance
     * was published under), or KEPT; waiting counts the takes in line.
     */
    @Override
    public LockInspection inspect(String key) {
        this.lock.lock();
        try {
            KeySlot slot = this.slots.get(key);
            return (slot != null) ? slot.inspect(System.nanoTime(), this.instances::holderOf) : LockInspection.free(key, 0);
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The holder with this token goes at once, the key's other holders stay: one reader or permit lost. */
    void drop(String key, String token) {
        this.lock.lock();
        try {
            KeySlot slot = this.slots.get(key);
            if (slot != null) {
                slot.drop(token);
                slot.signalAll();
            }
        }
        finally {
            this.lock.unlock();
        }
    }

    /** Takes fail from now on, waiting ones too; held locks stay until released or their leases end. */
    @Override
    public void close() {
        this.lock.lock();
        try {
            this.closed = true;
            for (KeySlot slot : this.slots.values()) {
                slot.signalAll();
            }
        }
        finally {
            this.lock.unlock();
        }
    }
}
