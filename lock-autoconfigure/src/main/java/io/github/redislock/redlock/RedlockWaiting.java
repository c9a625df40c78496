package io.github.redislock.redlock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.Sharing;
import io.github.redislock.redis.support.KeySlots;

/**
 * Taking a key on Redlock until the deadline: attempts ({@link RedlockAttempt}), each with a fresh token, 20–70 ms
 * apart (random, so that contenders do not collide in step), and the threads waiting counted per key. Write locks,
 * read locks and permits alike wait by retries; one thing more for a write lock that finds readers, so that they
 * cannot starve it (against other writers it only retries, as it always has):
 * <pre>
 * state     event                                                  next state
 * first     the attempt takes a majority                           held
 * first     it does not; time is left                              retrying, 20–70 ms apart
 * retrying  an attempt takes a majority                            held
 * first,    it does not, a node answering that readers hold the    queued: a place of its own ({@code <store
 * retrying  key there; time is left                                id>_w_<n>}) in each node's queue, with every
 *                                                                  later attempt, which also takes over a key a
 *                                                                  node's release handed to that place
 * queued    an attempt takes a majority                            held, and the place left on every node
 * any       the deadline passes, the attempt fails or is           gone (null or thrown), and any place left on
 *           interrupted                                            every node (again on a node answering later)
 * </pre>
 * On each node a reader that arrives while the writer's place is queued there waits behind it ({@code share.lua}),
 * and the last reader's release hands the node's key to it. A place nobody refreshes expires within
 * {@link #ENTRY_MILLIS}. Shares themselves never queue on Redlock: they retry.
 */
final class RedlockWaiting {

    /** How long a waiting writer's queue entry stays valid without the next attempt refreshing it. */
    static final long ENTRY_MILLIS = 1000;

    private final RedlockNode[] nodes;

    private final int quorum;

    private final LockTokens tokens;

    private final RedlockAttempt attempts;

    private final String keyPrefix;

    /** Numbers the places of waiting writers. */
    private final AtomicLong places = new AtomicLong();

    /** Threads of this application after an attempt that found the key taken, per key. */
    private final Map<String, Integer> waiting = new ConcurrentHashMap<>();

    RedlockWaiting(RedlockNode[] nodes, int quorum, LockTokens tokens, RedlockAttempt attempts, String keyPrefix) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.tokens = tokens;
        this.attempts = attempts;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Attempts until one takes a majority or the deadline passes.
     * @throws LockException if fewer than a majority of nodes answered the last attempt, a node holds a larger
     * fencing token than the majority reported or has the key in use with another permit count, or the thread is
     * interrupted
     */
    @Nullable RedlockHandle take(RedlockStore store, String key, long leaseMillis, long deadline, Sharing sharing) {
        RedlockAttempt.Waiter place = null;
        List<Round<Taken>> queued = List.of();
        boolean counted = false;
        try {
            while (true) {
                // A fresh token per attempt: a late release of a failed attempt can never remove a later one's lock.
                String token = this.tokens.next();
                RedlockAttempt.Outcome attempt = this.attempts.attempt(key, token, leaseMillis, sharing, place);
                if (place != null) {
                    // Made only for a writer that queued: an uncontended take allocates nothing here.
                    queued = queued.isEmpty() ? new ArrayList<>() : queued;
                    queued.add(attempt.round());
                }
                if (attempt.fence() > 0) {
                    return new RedlockHandle(store, key, token, attempt.fence(), leaseMillis, attempt.startNanos(),
                            attempt.round(), sharing);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    int reachable = this.attempts.reachable(attempt.round(), leaseMillis);
                    if (reachable < this.quorum) {
                        throw new LockException("Only " + reachable + " of " + this.nodes.length
                                + " Redlock nodes answered for lock '" + key + "'; a majority (" + this.quorum
                                + ") is needed", attempt.round().firstError());
                    }
                    return null;
                }
                if (!counted) {
                    counted = true;
                    this.waiting.merge(key, 1, Integer::sum);
                }
                if (place == null && sharing.isExclusive() && readersHold(attempt.round())) {
                    place = place(key);
                }
                // Backing off, not synchronising: the holder's release is not announced across the nodes.
                LockSupport.parkNanos(Math.min(remaining,
                        TimeUnit.MILLISECONDS.toNanos(20 + ThreadLocalRandom.current().nextLong(51))));
                if (Thread.currentThread().isInterrupted()) {
                    throw new LockException("Interrupted while waiting for lock '" + key + "'");
                }
            }
        }
        finally {
            if (counted) {
                this.waiting.computeIfPresent(key, (name, threads) -> (threads == 1) ? null : threads - 1);
            }
            if (place != null) {
                leave(key, place.id(), queued);
            }
        }
    }

    /** Whether a node answered that readers hold the key there. */
    private boolean readersHold(Round<Taken> round) {
        for (int i = 0; i < this.nodes.length; i++) {
            Taken taken = round.answer(i);
            if (taken != null && taken.readers()) {
                return true;
            }
        }
        return false;
    }

    private RedlockAttempt.Waiter place(String key) {
        String id = this.tokens.id() + "_w_" + Long.toString(this.places.incrementAndGet(), 36);
        return new RedlockAttempt.Waiter(id, ENTRY_MILLIS,
                "PUBLISH:" + KeySlots.handoffChannelPrefix(this.keyPrefix, key, false) + id);
    }

    /**
     * Leaves the place on every node, without waiting, passing on a key handed to it; and again on each node whose
     * answer to an attempt comes later (that attempt may queue the place after this leave).
     */
    private void leave(String key, String id, List<Round<Taken>> queued) {
        for (RedlockNode node : this.nodes) {
            node.leave(key, id);
        }
        for (Round<Taken> round : queued) {
            round.whenAnswered((index) -> this.nodes[index].leave(key, id));
        }
    }

    /** Threads waiting now, per key: from their first attempt that found the key taken until take returns. */
    Map<String, Integer> waiting() {
        return new TreeMap<>(this.waiting);
    }
}
