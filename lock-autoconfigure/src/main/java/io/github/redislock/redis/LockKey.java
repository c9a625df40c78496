package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.redis.support.KeySlots;

/**
 * A lock key and its companion keys (its queue of waiting applications and their entries; for a shared key also
 * its holders), in the order the scripts take them. One per acquisition, reused by its release: the encodings
 * are made once, the names of a shared key's companions on first use.
 */
final class LockKey {

    final String name;

    private final String queue;

    private final String queueEntries;

    /** Encoded on first use; a race only encodes twice. */
    private byte @Nullable [][] bytes;

    /** {@code share.lua}'s keys, named on first use; a race only names them twice. */
    private String @Nullable [] shareKeys;

    LockKey(String name) {
        this.name = name;
        String[] queueKeys = KeySlots.queueKeys(name);
        this.queue = queueKeys[0];
        this.queueEntries = queueKeys[1];
    }

    /** The script keys for a client that takes strings. */
    List<String> scriptKeyList() {
        return List.of(this.name, this.queue, this.queueEntries);
    }

    /** The lock key alone, UTF-8 encoded (never modified by the caller). */
    byte[][] lockKeyBytes() {
        return new byte[][] { scriptKeyBytes()[0] };
    }

    /** The script keys, UTF-8 encoded, for a client that takes bytes (never modified by the caller). */
    byte[][] scriptKeyBytes() {
        byte[][] encoded = this.bytes;
        if (encoded == null) {
            encoded = new byte[][] { this.name.getBytes(StandardCharsets.UTF_8),
                    this.queue.getBytes(StandardCharsets.UTF_8), this.queueEntries.getBytes(StandardCharsets.UTF_8) };
            this.bytes = encoded;
        }
        return encoded;
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
