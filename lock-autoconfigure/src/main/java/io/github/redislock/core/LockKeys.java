package io.github.redislock.core;

import java.nio.charset.StandardCharsets;

import io.github.redislock.LockException;

/** Checks a lock key (and the key prefix) before any Redis call. */
final class LockKeys {

    /** Longest key accepted, in UTF-8 bytes, prefix included. */
    static final int MAX_KEY_BYTES = 512;

    private LockKeys() {
    }

    /**
     * The Redis key for a lock name: prefix + name.
     * @throws LockException if it is longer than {@link #MAX_KEY_BYTES}, or contains {@link KeySlots#MARKER}
     * (keys that are not valid text never get here: {@code LockRequest} refuses them)
     */
    static String checked(String prefix, String name) {
        String key = prefix.isEmpty() ? name : prefix.concat(name);
        // Cheap upper bound first: a UTF-8 char takes at most 3 bytes per UTF-16 unit.
        if (key.length() * 3 > MAX_KEY_BYTES && key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new LockException("Lock key '" + key.substring(0, Math.min(key.length(), 64)) + "...' is longer "
                    + "than " + MAX_KEY_BYTES + " bytes (key prefix included)");
        }
        if (key.contains(KeySlots.MARKER)) {
            throw new LockException("Lock key '" + key + "' contains '" + KeySlots.MARKER + "', which marks the "
                    + "library's own keys and channels");
        }
        return key;
    }

    /**
     * A key prefix as given, once checked: it may not contain {@link KeySlots#MARKER}, and braces only as a
     * whole hash tag (which then puts every lock of the application in one cluster slot).
     * @throws IllegalArgumentException if it does
     */
    static String checkedPrefix(String prefix) {
        if (prefix.contains(KeySlots.MARKER) || !KeySlots.bracesFormHashTag(prefix)
                || (prefix.indexOf('{') < 0 && prefix.indexOf('}') >= 0)) {
            throw new IllegalArgumentException("The key prefix '" + prefix + "' may not contain '" + KeySlots.MARKER
                    + "', and braces only as one whole hash tag ('{...}')");
        }
        return prefix;
    }
}
