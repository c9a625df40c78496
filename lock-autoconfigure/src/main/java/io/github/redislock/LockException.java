package io.github.redislock;

/**
 * Base of every exception this library throws. Unchecked: a lock failure is a runtime condition the
 * caller usually cannot repair in place.
 * <p>
 * Thrown as-is when the store fails while a lock is taken (connection refused, command timeout, error
 * reply): the message names the lock key and the cause is the store client's exception. The annotated
 * method has not run in that case.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LockException(String message) {
        super(message);
    }

    public LockException(String message, Throwable cause) {
        super(message, cause);
    }
}
