package io.github.redislock.autoconfigure;

/**
 * The application cannot lock the way it asks to: locks are declared but nothing would take them, or it is
 * not clear which Redis to lock on. Stops the start-up; {@link LockConfigurationFailureAnalyzer} explains it.
 */
final class LockConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String action;

    LockConfigurationException(String description, String action) {
        super(description);
        this.action = action;
    }

    /** What the user can do about it. */
    String getAction() {
        return this.action;
    }
}
