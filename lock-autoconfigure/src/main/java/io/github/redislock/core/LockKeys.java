package io.github.redislock.core;

import java.nio.charset.StandardCharsets;

import io.github.redislock.LockException;

/** Checks a lock key before any Redis call. */
final class LockKeys {

    /** Longest key accepted, in UTF-8 bytes, prefix included. */
    static final int MAX_KEY_BYTES = 512;

    private LockKeys() {
    }

    /**
     * The Redis key for a lock name: prefix + name.
     * @throws LockException if it is longer than {@link #MAX_KEY_BYTES} (keys that are not valid text never
     * get here: {@code LockRequest} refuses them)
     */
    static String checked(String prefix, String name) {
        String key = prefix.isEmpty() ? name : prefix.concat(name);
        // Cheap upper bound first: a UTF-8 char takes at most 3 bytes per UTF-16 unit.
        if (key.length() * 3 > MAX_KEY_BYTES && key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new LockException("Lock key '" + key.substring(0, Math.min(key.length(), 64)) + "...' is longer "
                    + "than " + MAX_KEY_BYTES + " bytes (key prefix included)");
        }
        return key;
    }
}
