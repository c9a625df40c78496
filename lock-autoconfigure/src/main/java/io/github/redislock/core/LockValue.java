package io.github.redislock.core;

/**
 * The one place that knows what a lock key holds: {@code <owner>:<fence>}, where the owner is the holding
 * acquisition's random token, or the id of the application a release handed the lock to, and the fence is
 * the fencing token in decimal. Tokens and client ids are URL-safe Base64 and never contain a colon.
 */
final class LockValue {

    private LockValue() {
    }

    /** The value a holder stores. */
    static String of(String owner, long fence) {
        return owner + ':' + fence;
    }

    /**
     * What the release script matches against any fence of the owner: an acquire whose reply never arrived,
     * or a hand-off to an application that no longer waits.
     */
    static String anyFenceOf(String owner) {
        return owner + ':';
    }
}
