package io.github.redislock;

/**
 * Reads lock keys as the library writes them: '<owner>:<fence>' while held, '~:<fence>' for one lease after a
 * release (the last fence, for the next holder to count on from), or nothing.
 */
public final class LockValues {

    private LockValues() {
    }

    /** Whether a lock key's value (a GET reply) says the lock is held. */
    public static boolean held(Object value) {
        return value != null && !((String) value).startsWith("~:");
    }
}
