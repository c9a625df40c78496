package io.github.redislock.test;

import java.time.Duration;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockEngineView;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspector;
import io.github.redislock.engine.LockLossListener;

/**
 * Locks within this JVM only, for tests where the lock is not what is tested and no Redis should be needed for it.
 * Opt in with {@link AutoConfigureInProcessLocks}; never use it in production, where the application's instances
 * would not exclude each other.
 * <p>
 * It is the library's own lock engine (the one that runs over Redis, Redlock and ZooKeeper) over a store kept in
 * this JVM's memory, so within the JVM a test sees what production does: one holder per key at a time (other
 * threads wait, first come first served, up to the request's wait time, then get
 * {@link LockNotAcquiredException}); the holding thread may take the key again (reentrancy: nested handles, the
 * key released when the outermost closes; other threads, and requests for asynchronous work, are never let in by
 * it); several keys are taken in order, all or nothing; every acquisition of a key gets a larger fencing token
 * than the one before; a lock without a fixed lease is renewed every third of the renewed lease while it is held;
 * a fixed lease ends on time, after which the key is free, the old handle is no longer held, and its release (or
 * a check) finds it lost and signals the loss; a request's holdAtLeast keeps a key whose handle closed sooner
 * taken, by nobody (not even the thread that held it), until that long after it was acquired. Keys are named and
 * checked as in Redis, with the key prefix. With Actuator and Micrometer, the {@code redislocks} endpoint and the
 * engine's meters show its locks.
 */
public final class InProcessLockProvider implements LockProvider, LockInspector, LockEngineView, AutoCloseable {

    /** The renewed lease when none is given: {@code redis-lock.lease-time}'s default. */
    private static final Duration DEFAULT_RENEWED_LEASE = Duration.ofSeconds(30);

    private final InMemoryLockStore store;

    private final LockEngine engine;

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
        this.store = new InMemoryLockStore(keyPrefix);
        this.engine = new LockEngine(this.store, renewedLease, lossListener);
    }

    /**
     * Takes every key of the request, one by one in the request's order, within its one wait time; all or
     * nothing.
     * @throws LockNotAcquiredException if a key stayed taken for the whole wait time (nothing is then held)
     * @throws LockException if a key is refused, the thread is interrupted or the provider is closed (nothing is
     * then held)
     */
    @Override
    public LockHandle acquire(LockRequest request) {
        return this.engine.acquire(request);
    }

    /**
     * Whether the key (prefix included) is kept now after its handle closed, until holdAtLeast has passed since it
     * was acquired: taken, by nobody.
     */
    public boolean isKept(String key) {
        return this.store.state(key) == KeySlot.State.KEPT;
    }

    /** Whether the key (prefix included) is held now, or kept for holdAtLeast. */
    public boolean isHeld(String key) {
        return this.store.state(key) != KeySlot.State.FREE;
    }

    /** Who holds the lock of this name now (the key prefix is added), as the endpoint's holder view shows it. */
    @Override
    public LockInspection inspect(String name) {
        return this.engine.inspect(name);
    }

    /** What this provider's locks are now, and how renewal fares: the engine's snapshot, as the endpoint shows it. */
    @Override
    public LockEngineState state() {
        return this.engine.state();
    }

    /** Tells the probe of failed renewal rounds; internal, for metrics. */
    @Override
    public void observe(LockEngineProbe probe) {
        this.engine.observe(probe);
    }

    /** Names this process as the holder of this provider's locks in {@link #inspect}. */
    public void publishInstance(InstanceInfo self) {
        this.store.publishInstance(this.engine.ownerId(), self);
    }

    /** Stops renewing; takes fail from now on, waiting ones too. Held locks end when closed or their leases end. */
    @Override
    public void close() {
        this.engine.close();
    }

    @Override
    public String toString() {
        return "InProcessLockProvider[" + this.engine.describe() + "]";
    }
}
