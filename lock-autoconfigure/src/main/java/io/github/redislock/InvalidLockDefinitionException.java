package io.github.redislock;

/**
 * A {@code @DistributedLock} declaration that can never work: a key expression that does not parse or
 * refers to an unknown parameter or bean, an unparsable duration, a missing fallback method, SKIP on a
 * primitive return type. Raised while the application context starts, naming the method, so the mistake
 * is found before the first call rather than in production.
 */
public class InvalidLockDefinitionException extends LockException {

    private static final long serialVersionUID = 1L;

    private final String method;

    public InvalidLockDefinitionException(String method, String problem) {
        this(method, problem, null);
    }

    public InvalidLockDefinitionException(String method, String problem, Throwable cause) {
        super("Invalid @DistributedLock on " + method + ": " + problem, cause);
        this.method = method;
    }

    /** The method in {@code Class#method} form. */
    public String getMethod() {
        return this.method;
    }
}
