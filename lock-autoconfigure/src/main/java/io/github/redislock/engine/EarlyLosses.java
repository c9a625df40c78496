package io.github.redislock.engine;

import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockLossDetection;

/**
 * Losses a store reported for locks the engine had not registered yet (their take still returning), kept until the
 * engine registers the lock: the only owner of that state. Keyed by the lock's identity, whatever its own
 * {@code equals} says, since several holders of one shared key may be taken at once. Whichever side finds both the
 * registered entry and the remembered loss marks the lock lost (once, as always); a loss remembered for a lock
 * that never registers (its take failed) is one entry that nothing reads again.
 */
final class EarlyLosses {

    private final ConcurrentHashMap<Identity, LockLossDetection> losses = new ConcurrentHashMap<>();

    void remember(StoreLock lock, LockLossDetection how) {
        this.losses.put(new Identity(lock), how);
    }

    /** The loss remembered for the lock, taken out; {@code null} if none (the common case costs no allocation). */
    @Nullable LockLossDetection remove(StoreLock lock) {
        return this.losses.isEmpty() ? null : this.losses.remove(new Identity(lock));
    }

    /** A store lock compared by identity. */
    private record Identity(StoreLock lock) {

        @Override
        public boolean equals(@Nullable Object other) {
            return other instanceof Identity identity && identity.lock == this.lock;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(this.lock);
        }
    }
}
