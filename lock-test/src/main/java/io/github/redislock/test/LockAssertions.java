package io.github.redislock.test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Entry point of the AssertJ assertions on locks, next to AssertJ's own {@code Assertions}:
 *
 * <pre>{@code
 * purchases.purchase(7);
 * assertThat(lockRecorder).ranUnder("sku:7:lock").holdsNothing();
 * assertThatLock(redisConnectionFactory, "shop:sku:7:lock").isFree();
 * }</pre>
 */
public final class LockAssertions {

    private LockAssertions() {
    }

    /** Assertions on the locks recorded so far (see {@link AutoConfigureLockRecorder}). */
    public static RecordedLocksAssert assertThat(LockRecorder recorder) {
        return new RecordedLocksAssert(recorder);
    }

    /**
     * Assertions on a lock key in Redis, read now through the connection factory.
     * @param key the key as Redis has it: {@code redis-lock.key-prefix} followed by the lock name
     */
    public static LockKeyAssert assertThatLock(RedisConnectionFactory connectionFactory, String key) {
        return new LockKeyAssert(key, new RedisLockKeyState(connectionFactory, key));
    }

    /**
     * Assertions on a lock key of the in-process locks (the {@link InMemoryLockStore} bean of
     * {@link AutoConfigureInProcessLocks}). Callable only where Spring Data Redis is on the class path, as the
     * compiler must see the overload above: elsewhere (the ZooKeeper store), use
     * {@link InProcessLockAssertions#assertThatLock}.
     * @param key the key with the store's key prefix, as in Redis
     */
    public static LockKeyAssert assertThatLock(InMemoryLockStore store, String key) {
        return InProcessLockAssertions.assertThatLock(store, key);
    }
}
