package io.github.redislock;

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
}
