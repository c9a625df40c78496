package io.github.redislock.redlock;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.LockProvider;
import io.github.redislock.LockRequest;
import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockEngineProbe;
import io.github.redislock.engine.LockEngineState;
import io.github.redislock.engine.LockEngineView;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspector;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Redlock: a lock taken on a majority of N independent Redis masters (N ≥ 3, no replication between them), so
 * that it survives the loss of any minority of them.
 * <p>
 * An attempt sends the single-Redis acquire script to every node at once, with one fresh token. It succeeds
 * when a majority took the lock within its validity time: the lease, less the time the attempt took, less a
 * clock drift allowance (1% of the lease plus 2 ms). Then the fencing token is made: the largest counter the
 * majority reported (each read after the lock was taken there), plus one, written back to every node with
 * "raise to at least" and confirmed by a majority, again within the validity time. Any two majorities share a
 * node, so the next holder reads a counter at least this large, whichever nodes answer it: tokens strictly
 * increase as long as no node that confirmed a token loses its counter (see below). A failed attempt releases
 * the token everywhere. Waiting is repeated attempts, 20–70 ms apart (random, so that contenders do not
 * collide in step), until the wait time ends. Renewal and release go to every node; a renewal in which more nodes
 * answer that they no longer hold the lock than a majority can spare marks it lost, and a lock not extended by
 * a majority within its validity time counts as no longer held. Each lock of a renewal batch is judged on its
 * own round: one that misses a majority leaves the others extended. A lock closed before its holdAtLeast has
 * passed is kept on every node instead, owned by nobody, for the rest of it (counted from when the majority and
 * the fencing token were confirmed); the next holder's token still comes from the counters.
 * <p>
 * The store-neutral engine ({@link LockEngine}) runs over it, so Redlock locks are reentrant and multi-key as
 * single-Redis locks are: the holding thread asking again gets a nested handle at once, with no node call, and
 * the key is released on every node when the outermost handle closes; other threads, and non-reentrant
 * (asynchronous, reactive) requests, are kept out. Several keys are taken in order, all or nothing.
 * <p>
 * Limits. A node restarted without its data (no persistence, or {@code appendfsync} other than
 * {@code always}) forgets the locks and counters it had: keep a restarted node out of the configuration for
 * one lease (the Redlock rule; this client does not detect restarts), and keep fewer nodes restarting empty than
 * the majority write covers, or fencing tokens may repeat. Process pauses and clock jumps beyond the drift
 * allowance break it as they break every lease-based lock; fencing tokens are the defence.
 */
public final class RedlockClient implements LockProvider, LockInspector, LockEngineView, AutoCloseable {

    private final RedlockStore store;

    private final LockEngine engine;

    /**
     * @param nodes one connection factory per independent master, at least 3
     * @param keyPrefix text put in front of every key, may be empty
     * @param renewedLease the lease of renewed locks, renewed every third of it
     * @param lossListener told when a held lock is found lost
     */
    public RedlockClient(List<? extends RedisConnectionFactory> nodes, @Nullable String keyPrefix,
            Duration renewedLease, LockLossListener lossListener) {
        this.store = new RedlockStore(nodes, keyPrefix);
        this.engine = new LockEngine(this.store, renewedLease, lossListener);
    }

    /**
     * Takes every key of the request, one by one in the request's order, within its one wait time; all or
     * nothing. A key this thread holds already is entered again when the request is reentrant.
     * @throws LockNotAcquiredException if a key stayed taken by someone else for the whole wait time
     * @throws LockException if fewer than a majority of nodes answered the last attempt, a node holds a larger
     * fencing token than the majority reported, or the thread is interrupted (nothing is then held)
     */
    @Override
    public LockHandle acquire(LockRequest request) {
        return this.engine.acquire(request);
    }

    /**
     * Who holds the lock of this name now, whichever application, as a majority of the nodes says.
     * @throws LockException if the name makes a key the store refuses, or fewer than a majority of nodes answer
     */
    @Override
    public LockInspection inspect(String name) {
        return this.engine.inspect(name);
    }

    /**
     * What this application holds and waits for now, and how renewal fares: the engine's read-only snapshot, for
     * the Actuator endpoint and the gauges. Sends nothing to the nodes.
     */
    @Override
    public LockEngineState state() {
        return this.engine.state();
    }

    /**
     * Names this instance in the instance registry on every node, from now until {@link #close}, so that the
     * holder view of any application can tell who holds the keys this one holds.
     * @param self this instance
     * @param ttl how long its entries outlive the instance (refreshed every third of it)
     */
    public void publishInstance(InstanceInfo self, Duration ttl) {
        this.store.publishInstance(self, ttl);
    }

    /** Tells the probe of failed renewal rounds; internal, for metrics. */
    @Override
    public void observe(LockEngineProbe probe) {
        this.engine.observe(probe);
    }

    /** Runs one renewal round now (tests, and callers that know a long pause just ended). */
    public void renewNow() {
        this.engine.renewNow();
    }

    /** Stops renewing (held locks then expire with their lease), the node calls and the registry entries. */
    @Override
    public void close() {
        this.engine.close();
    }
}
