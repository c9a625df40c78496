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
     * Fails with a {@link LockException} naming {@code source} (the key expression, or the key itself) when
     * the full key is longer than {@link #MAX_KEY_BYTES}.
     */
    static void checkLength(String fullKey, String source) {
        // Cheap upper bound first: a UTF-8 char takes at most 3 bytes per UTF-16 unit.
        if (fullKey.length() * 3 > MAX_KEY_BYTES && fullKey.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new LockException("Lock key from '" + source + "' is longer than " + MAX_KEY_BYTES + " bytes: "
                    + fullKey.substring(0, Math.min(fullKey.length(), 64)) + "...");
        }
    }
}
