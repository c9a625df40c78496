package io.github.redislock.core;

/**
 * A lock's Redis key with the keys the acquire and release scripts touch next to it: the queue of waiting
 * applications and the queue's entries, always in the lock key's cluster slot (see {@link KeySlots}).
 * Computed once per acquisition.
 */
final class LockKey {

    final String name;

    /** The lock key, its queue and the queue's entries, in the order the scripts take them. */
    final String[] scriptKeys;

    LockKey(String name) {
        this.name = name;
        this.scriptKeys = new String[] { name, KeySlots.queueKey(name), KeySlots.queueEntriesKey(name) };
    }

    @Override
    public String toString() {
        return this.name;
    }
}
