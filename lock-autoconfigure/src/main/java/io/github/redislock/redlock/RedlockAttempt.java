package io.github.redislock.redlock;

import java.util.concurrent.ExecutorService;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;

/**
 * One Redlock attempt, for {@link RedlockStore#take}: the lock on a majority of the nodes, then its fencing token
 * raised to and confirmed by a majority, both within the validity time counted from when the attempt began; a
 * failed attempt is undone on every node, now and again on each node that answers later.
 */
final class RedlockAttempt {

    private static final Log logger = LogFactory.getLog(RedlockAttempt.class);

    private final RedlockNode[] nodes;

    private final int quorum;

    private final ExecutorService calls;

    RedlockAttempt(RedlockNode[] nodes, int quorum, ExecutorService calls) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.calls = calls;
    }

    /**
     * One attempt with its own token.
     * @return the fence ({@code 0}: failed, and undone on every node), when the attempt began, and its round
     */
    Outcome attempt(String key, String token, long leaseMillis) {
        long start = System.nanoTime();
        long validUntil = start + RedlockStore.validityNanos(leaseMillis);
        Round<RedlockNode.Taken> locked = Round.send(this.nodes, this.quorum, this.calls,
                (node) -> node.acquire(key, token, leaseMillis), RedlockNode.Taken::acquired);
        try {
            locked.await(validUntil, false);
            if (locked.successes() >= this.quorum && System.nanoTime() - validUntil < 0) {
                long fence = nextFence(key, locked, validUntil);
                if (fence > 0) {
                    return new Outcome(fence, start, locked);
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            undo(key, token, locked);
            throw new LockException("Interrupted while acquiring lock '" + key + "'", ex);
        }
        catch (RuntimeException | Error ex) {
            undo(key, token, locked);
            throw ex;
        }
        undo(key, token, locked);
        return new Outcome(0, start, locked);
    }

    /**
     * How many nodes answered the failed last attempt without an error, once every node answered or failed
     * (bounded by the command timeout, and the validity as a backstop): whether the lock is taken by someone
     * else or a majority is out of reach.
     */
    int reachable(Round<RedlockNode.Taken> round, long leaseMillis) {
        try {
            round.await(System.nanoTime() + RedlockStore.validityNanos(leaseMillis), true);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return this.nodes.length - round.errors();
    }

    /**
     * Undoes a failed attempt: releases the token on every node now, and again on each node whose answer
     * comes later (its acquisition may have run after this release, over another connection).
     */
    private void undo(String key, String token, Round<RedlockNode.Taken> attempt) {
        attempt.whenAnswered((index) -> {
            try {
                this.calls.execute(() -> this.nodes[index].release(key, token));
            }
            catch (RuntimeException ex) {
                logger.debug("Could not undo a late Redlock attempt on " + this.nodes[index], ex);
            }
        });
        // Best effort, without waiting: whatever the token took on any node goes.
        Round.send(this.nodes, this.quorum, this.calls, (node) -> node.release(key, token), (released) -> released);
    }

    /**
     * The fencing token: one more than the largest counter of the nodes that took the lock (a majority), or the
     * largest of their clocks (microseconds) when that is more, raised to on every node and confirmed by a
     * majority within the validity time. Counters expire a day after their last raise, so that a key used once
     * leaves nothing behind for good; tokens still increase, as the clocks have moved on by then.
     * @return the token, or 0 when a majority did not confirm it in time
     */
    private long nextFence(String key, Round<RedlockNode.Taken> locked, long validUntil)
            throws InterruptedException {
        long max = 0;
        long clock = 0;
        for (int i = 0; i < this.nodes.length; i++) {
            RedlockNode.Taken taken = locked.answer(i);
            if (taken != null && taken.acquired()) {
                max = Math.max(max, taken.counter());
                clock = Math.max(clock, taken.clock());
            }
        }
        long fence = Math.max(max + 1, clock);
        Round<Long> raised = Round.send(this.nodes, this.quorum, this.calls, (node) -> node.raiseFence(key, fence),
                (stored) -> stored == fence);
        raised.await(validUntil, false);
        for (int i = 0; i < this.nodes.length; i++) {
            Long stored = raised.answer(i);
            if (stored != null && stored > fence) {
                throw new LockException("Redlock node " + i + " holds fencing token " + stored + " for lock '" + key
                        + "', larger than the " + fence + " a majority agreed on: a node lost its data or the "
                        + "nodes are shared with another configuration; not taken");
            }
        }
        return (raised.successes() >= this.quorum && System.nanoTime() - validUntil < 0) ? fence : 0;
    }

    /**
     * What an attempt came to.
     * @param fence the fencing token, or {@code 0} when the attempt failed (undone)
     * @param startNanos when the attempt was sent ({@link System#nanoTime()}): the lock's lease counts from here
     * @param round the acquisition's round, with every node's answer as it comes
     */
    record Outcome(long fence, long startNanos, Round<RedlockNode.Taken> round) {
    }
}
