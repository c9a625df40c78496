package io.github.redislock.test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Extension;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.KeyRules;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockStore;
import io.github.redislock.engine.StoreListener;
import io.github.redislock.engine.StoreLock;

/**
 * Locks kept in this JVM's memory: the store under the {@code LockEngine} of {@link AutoConfigureInProcessLocks}
 * (a bean) and of an {@link InProcessLockProvider}, so that what the engine does for Redis (reentrancy, multi-key,
 * holdAtLeast, renewal, loss, the endpoint's state) it does here too. Leases are counted by this JVM's clock, as Redis counts them by its own: a lock whose lease
 * runs out unextended is free, and its holder finds it lost at its next renewal, check or release.
 * <p>
 * One {@link ReentrantLock} guards the map of {@link KeySlot}s and everything in them; nothing blocks while holding
 * it except a waiting take, which releases it while it waits. Each key goes through the states of {@link KeySlot}.
 * The line of a key is fair: a take waits behind every take that came before it, and only the first in line
 * takes a FREE key; each waiting take waits on a {@link Condition} of its own, and is woken when the key is
 * released, kept or extended, or when it becomes first. The first in line also wakes by itself when the
 * holder's lease (or the keep) ends, so a lock whose holder stopped extending it passes on without anybody
 * telling. A take that leaves the line (it took the key, its deadline passed, it was interrupted, the store
 * closed) wakes the next one. Fencing tokens count up per key from 1 and are never reused, also across the key
 * being FREE; a release, extension or check compares both the token and the fencing token with the key's, so an
 * old holder can never touch a later one's lock.
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
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        this.lock.lock();
        try {
            KeySlot slot = this.slots.computeIfAbsent(key, KeySlot::new);
            Condition me = null;
            try {
                while (true) {
                    if (this.closed) {
                        throw new LockException("The in-process lock store is closed; lock '" + key + "' not taken");
                    }
                    long now = System.nanoTime();
                    KeySlot.State state = slot.state(now);
                    if (state == KeySlot.State.FREE && (slot.line.isEmpty() || slot.line.peekFirst() == me)) {
                        long fence = slot.take(token, now, leaseNanos);
                        return new InMemoryLock(this, key, token, fence, now);
                    }
                    long left = deadlineNanos - now;
                    if (left <= 0) {
                        return null;
                    }
                    if (me == null) {
                        me = this.lock.newCondition();
                        slot.line.addLast(me);
                    }
                    if (slot.line.peekFirst() == me && state != KeySlot.State.FREE) {
                        // First in line: nobody tells when a lease or keep ends, so wake then by itself.
                        left = Math.min(left, slot.untilNanos() - now);
                    }
                    me.awaitNanos(left);
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
                KeySlot slot = heldSlot(locks.get(i), now);
                if (slot != null) {
                    slot.extend(now, leaseNanos);
                    // The first in line waits for the end of the lease; it has just moved.
                    slot.signalFirst();
                }
                // Never UNKNOWN: memory always answers.
                extended[i] = (slot != null) ? Extension.EXTENDED : Extension.NOT_HELD;
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
            KeySlot slot = heldSlot(held, now);
            if (slot == null) {
                return false;
            }
            if (keepMillis > 0) {
                slot.keep(now, TimeUnit.MILLISECONDS.toNanos(keepMillis));
            }
            else {
                slot.free();
            }
            // Kept too: the first in line then waits, with a timeout, for the keep to end.
            slot.signalFirst();
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
            return heldSlot(held, System.nanoTime()) != null;
        }
        finally {
            this.lock.unlock();
        }
    }

    /** The lock's slot if its key is HELD by exactly its token and fencing token now; else {@code null}. */
    private @Nullable KeySlot heldSlot(StoreLock held, long now) {
        KeySlot slot = this.slots.get(held.key());
        return (slot != null && slot.heldBy(held.token(), held.fencingToken(), now)) ? slot : null;
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
                slot.free();
                slot.signalFirst();
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

    /** Takes fail from now on, waiting ones too; held locks stay until released or their leases end. */
    @Override
    public void close() {
        this.lock.lock();
        try {
            this.closed = true;
            for (KeySlot slot : this.slots.values()) {
                for (Condition waiter : slot.line) {
                    waiter.signal();
                }
            }
        }
        finally {
            this.lock.unlock();
        }
    }
}
