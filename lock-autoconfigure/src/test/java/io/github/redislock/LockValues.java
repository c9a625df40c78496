package io.github.redislock;

import java.util.List;

/**
 * Reads lock keys as the library writes them: '<owner>:<fence>' while held, nothing once released (a release
 * deletes the key or hands it on).
 */
public final class LockValues {

    private LockValues() {
    }

    /** Whether a lock key's value (a GET reply) says the lock is held: any value at all. */
    public static boolean held(Object value) {
        return value != null;
    }

    /**
     * The keys of a {@code KEYS} reply that locks left, without the instance registry's entries
     * ({@code <prefix>~lock~instance:<id>}), which an application keeps while it runs.
     */
    public static List<String> lockKeys(Object keysReply) {
        return ((List<?>) keysReply).stream()
            .map(String.class::cast)
            .filter((key) -> !key.contains("~lock~instance:"))
            .toList();
    }
}
