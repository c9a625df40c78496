package io.github.redislock.test;

/**
 * The assertions on in-process lock keys, for a test class path without Spring Data Redis (an application on the
 * ZooKeeper store): {@link LockAssertions#assertThatLock(InMemoryLockStore, String)} cannot be called there,
 * because the compiler must see its overload for Redis, whose parameter type is Spring Data Redis's, to choose
 * between the two. The same assertions, with no Redis type in sight:
 *
 * <pre>{@code
 * assertThatLock(inMemoryLockStore, "sku:7:lock").isFree();
 * }</pre>
 */
public final class InProcessLockAssertions {

    private InProcessLockAssertions() {
    }

    /**
     * Assertions on a lock key of the in-process locks: the {@link InMemoryLockStore} bean of
     * {@link AutoConfigureInProcessLocks}.
     * @param key the key with the store's key prefix, as in Redis
     */
    public static LockKeyAssert assertThatLock(InMemoryLockStore store, String key) {
        return new LockKeyAssert(key, () -> switch (store.state(key)) {
            case KEPT -> LockKeyAssert.KEPT;
            case HELD -> "held";
            case FREE -> null;
        });
    }
}
