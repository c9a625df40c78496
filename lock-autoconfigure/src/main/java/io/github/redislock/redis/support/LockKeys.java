package io.github.redislock.redis.support;

import io.github.redislock.engine.KeyRules;

/**
 * Checks a lock key (and the key prefix) before any Redis call, the same for both Redis stores: the rules every
 * store of this library shares ({@link KeyRules}), and a prefix's braces, which decide cluster slots. Internal:
 * used by the lock stores of this library, not part of its API.
 */
public final class LockKeys {

    /** Longest key accepted, in UTF-8 bytes, prefix included ({@link KeyRules#MAX_KEY_BYTES}). */
    public static final int MAX_KEY_BYTES = KeyRules.MAX_KEY_BYTES;

    /**
     * The marker that begins the library's own part of a name (companion keys, counters, channels): no lock
     * key may contain it, so no lock name can produce one of them ({@link KeyRules#MARKER}).
     */
    public static final String MARKER = KeyRules.MARKER;

    private LockKeys() {
    }

    /**
     * The Redis key for a lock name: prefix + name ({@link KeyRules#checked}).
     * @throws io.github.redislock.LockException if it is longer than {@link #MAX_KEY_BYTES} or contains
     * {@link #MARKER}
     */
    public static String checked(String prefix, String name) {
        return KeyRules.checked(prefix, name);
    }

    /**
     * A key prefix as given, once checked: it may not contain {@link #MARKER}, and braces only as a
     * whole hash tag (which then puts every lock of the application in one cluster slot).
     * @throws IllegalArgumentException if it does
     */
    public static String checkedPrefix(String prefix) {
        if (prefix.contains(MARKER) || !KeySlots.bracesFormHashTag(prefix)
                || (prefix.indexOf('{') < 0 && prefix.indexOf('}') >= 0)) {
            throw new IllegalArgumentException("The key prefix '" + prefix + "' may not contain '" + MARKER
                    + "', and braces only as one whole hash tag ('{...}')");
        }
        return prefix;
    }
}
