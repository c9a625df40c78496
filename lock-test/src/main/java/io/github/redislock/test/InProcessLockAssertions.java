package io.github.redislock.test;

/**
 * The assertions on in-process lock keys, for a test class path without Spring Data Redis (an application on the
 * ZooKeeper store): {@link LockAssertions#assertThatLock(InProcessLockProvider, String)} cannot be called there,
 * because the compiler must see its overload for Redis, whose parameter type is Spring Data Redis's, to choose
 * between the two. The same assertions, with no Redis type in sight:
 *
 * <pre>{@code
 * assertThatLock(inProcessLockProvider, "sku:7:lock").isFree();
 * }</pre>
 */
public final class InProcessLockAssertions {

    private InProcessLockAssertions() {
    }

    /**
     * Assertions on a lock key of the in-process provider.
     * @param key the key with the provider's key prefix, as in Redis
     */
    public static LockKeyAssert assertThatLock(InProcessLockProvider provider, String key) {
        return new LockKeyAssert(key,
                () -> provider.isKept(key) ? LockKeyAssert.KEPT : provider.isHeld(key) ? "held" : null);
    }
}
