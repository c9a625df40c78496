package io.github.redislock.engine;

import java.nio.charset.StandardCharsets;

import io.github.redislock.LockException;

/**
 * The key rules a store applies in {@link LockStore#key}, written once for the stores that share them (single
 * Redis, Redlock, the in-memory store of {@code redis-lock-test}): the key is the prefix followed by the lock
 * name, at most {@value #MAX_KEY_BYTES} bytes in UTF-8, and never contains {@value #MARKER}, which begins the
 * names a store keeps of its own beside a lock's key (companion keys, counters, channels), so that no lock name
 * can produce one of them. Names that are not valid text or hold control characters never get here:
 * {@code LockRequest} refuses them. A store with rules of its own (ZooKeeper's node names) need not use this.
 * Internal: used by the stores of this library, not part of its API.
 */
public final class KeyRules {

    /** Longest key accepted, in UTF-8 bytes, prefix included. */
    public static final int MAX_KEY_BYTES = 512;

    /**
     * The marker that begins a store's own part of a name (companion keys, counters, channels): no lock key may
     * contain it, so no lock name can produce one of them.
     */
    public static final String MARKER = "~lock~";

    private KeyRules() {
    }

    /**
     * The key for a lock name: prefix + name.
     * @throws LockException if it is longer than {@link #MAX_KEY_BYTES} or contains {@link #MARKER}
     */
    public static String checked(String prefix, String name) {
        String key = prefix.isEmpty() ? name : prefix.concat(name);
        // Cheap upper bound first: a UTF-8 char takes at most 3 bytes per UTF-16 unit.
        if (key.length() * 3 > MAX_KEY_BYTES && key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new LockException("Lock key '" + printable(key.substring(0, Math.min(key.length(), 64)))
                    + "...' is longer than " + MAX_KEY_BYTES + " bytes (key prefix included)");
        }
        if (key.contains(MARKER)) {
            throw new LockException("Lock key '" + printable(key) + "' contains '" + MARKER + "', which marks the "
                    + "library's own keys and channels");
        }
        return key;
    }

    /** A key for a message: control characters as {@code \\uXXXX}, at most 200 chars of it. */
    public static String printable(String key) {
        int shown = Math.min(key.length(), 200);
        StringBuilder text = new StringBuilder(shown + 8);
        for (int i = 0; i < shown; i++) {
            char c = key.charAt(i);
            text.append(isControl(c) ? String.format("\\u%04X", (int) c) : String.valueOf(c));
        }
        return (shown < key.length()) ? text.append("...").toString() : text.toString();
    }

    /** Unicode's control characters (C0, DEL and C1), as {@code Character.getType} has them, without a lookup. */
    private static boolean isControl(char c) {
        return c < 0x20 || (c >= 0x7F && c <= 0x9F);
    }
}
