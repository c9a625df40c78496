/**
 * Support for the tests of applications that use redis-lock: {@link io.github.redislock.test.LockAssertions}
 * (which locks the code took, whether a key is held), {@link io.github.redislock.test.LockRecorder} (behind
 * {@link io.github.redislock.test.AutoConfigureLockRecorder}) and
 * {@link io.github.redislock.test.AutoConfigureInProcessLocks} (the engine over an
 * {@link io.github.redislock.test.InMemoryLockStore}; {@link io.github.redislock.test.InProcessLockProvider} by
 * hand), for tests where the lock is not what is tested.
 */
@NullMarked
package io.github.redislock.test;

import org.jspecify.annotations.NullMarked;
