package io.github.redislock.test;

import java.time.Duration;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;

/**
 * Locks within this JVM only, in one constructor call: the library's own lock engine (the one that runs over
 * Redis, Redlock and ZooKeeper) over an {@link InMemoryLockStore}, and nothing more. For tests that build a
 * provider by hand (as {@link TestLocks} does); {@link AutoConfigureInProcessLocks} puts an
 * {@link InMemoryLockStore} bean under the auto-configured engine instead. Never use it in production, where the
 * application's instances would not exclude each other.
 * <p>
 * Within the JVM a test sees what production does: one holder per key at a time (other threads wait, first come
 * first served, up to the request's wait time, then get {@link LockNotAcquiredException}); the holding thread may
 * take the key again (reentrancy: nested handles, the key released when the outermost closes; other threads, and
 * requests for asynchronous work, are never let in by it); several keys are taken in order, all or nothing; every
 * acquisition of a key gets a larger fencing token than the one before; a lock without a fixed lease is renewed
 * every third of the renewed lease while it is held; a fixed lease ends on time, after which the key is free, the
 * old handle is no longer held, and its release (or a check) finds it lost and signals the loss; a request's
 * holdAtLeast keeps a key whose handle closed sooner taken, by nobody (not even the thread that held it), until
 * that long after it was acquired. Keys are named and checked as in Redis, with the key prefix.
 */
public final class InProcessLockProvider extends LockEngine {

    /** The renewed lease when none is given: {@code redis-lock.lease-time}'s default. */
    private static final Duration DEFAULT_RENEWED_LEASE = Duration.ofSeconds(30);

    /** A provider whose keys carry no prefix. */
    public InProcessLockProvider() {
        this("");
    }

    /** @param keyPrefix put in front of every key, like {@code redis-lock.key-prefix} */
    public InProcessLockProvider(String keyPrefix) {
        this(keyPrefix, DEFAULT_RENEWED_LEASE, LockLossListener.NONE);
    }

    /**
     * @param keyPrefix put in front of every key, like {@code redis-lock.key-prefix}
     * @param renewedLease the lease of locks without a fixed lease, renewed every third of it while they are
     * held, like {@code redis-lock.lease-time}
     * @param lossListener told when a held lock is found lost
     */
    public InProcessLockProvider(String keyPrefix, Duration renewedLease, LockLossListener lossListener) {
        super(new InMemoryLockStore(keyPrefix), renewedLease, lossListener);
    }
}
