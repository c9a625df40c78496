package io.github.redislock.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.redis.support.KeySlots;

/**
 * A lock key and its companion keys (its queue of waiting applications and their entries; for a shared key also
 * its holders), in the order the scripts take them. One per acquisition, reused by its release: the names of a
 * shared key's companions are made on first use.
 */
final class LockKey {

    final String name;

    /** The lock key, its queue and queue entries, in the order the scripts take them; never modified. */
    private final String[] scriptKeys;

    /** {@code share.lua}'s keys, named on first use; a race only names them twice. */
    private String @Nullable [] shareKeys;

    LockKey(String name) {
        this.name = name;
        this.scriptKeys = KeySlots.scriptKeys(name);
    }

    /** The script keys for a client that takes strings. */
    List<String> scriptKeyList() {
        return List.of(this.scriptKeys);
    }

    /**
     * The script keys: the lock key, its queue and its queue entries (never modified by the caller; a script on
     * the lock key alone takes the first).
     */
    String[] scriptKeys() {
        return this.scriptKeys;
    }

    /** The keys {@code share.lua} takes: the lock key, its queue, queue entries and holders. */
    String[] shareKeys() {
        String[] keys = this.shareKeys;
        if (keys == null) {
            String[] companions = KeySlots.shareKeys(this.name);
            keys = new String[] { this.name, companions[0], companions[1], companions[2] };
            this.shareKeys = keys;
        }
        return keys;
    }

    /** The sorted set of the key's holders while it is shared. */
    String holders() {
        return shareKeys()[3];
    }

    @Override
    public String toString() {
        return this.name;
    }
}
