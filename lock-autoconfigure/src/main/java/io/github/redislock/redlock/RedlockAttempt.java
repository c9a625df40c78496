package io.github.redislock.redlock;

import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Sharing;

/**
 * One Redlock attempt, for {@link RedlockStore#take}: the lock on a majority of the nodes, and its fencing token
 * standing on a majority (raised by the take itself, or by a second round), both within the validity time counted
 * from when the attempt began; a failed attempt is undone on every node, now and again on each node that answers
 * later.
 */
final class RedlockAttempt {

    private final RedlockNode[] nodes;

    private final int quorum;

    RedlockAttempt(RedlockNode[] nodes, int quorum) {
        this.nodes = nodes;
        this.quorum = quorum;
    }

    /**
     * One attempt with its own token at a write lock (exclusive) or a share.
     * @param waiter a waiting writer's place in each node's queue (see {@link RedlockNode#acquire(String, String,
     * long, String, long, String)}); {@code null} for none, and always for a share (shares never queue here)
     * @return the fence ({@code 0}: failed, and undone on every node), when the attempt began, and its round
     * @throws LockException when a node has the key in use with another permit count ({@link Sharing#mismatch})
     */
    Outcome attempt(String key, String token, long leaseMillis, Sharing sharing, @Nullable Waiter waiter) {
        long start = System.nanoTime();
        long validUntil = start + RedlockStore.validityNanos(leaseMillis);
        Round<Taken> locked;
        if (sharing.isExclusive()) {
            NodeCommand acquisition = RedlockNode.acquisition(key, token, leaseMillis, waiter);
            locked = Round.send(this.nodes, this.quorum, (node, answer) -> node.acquire(acquisition, token, answer),
                    Taken::acquired);
        }
        else {
            NodeCommand share = RedlockNode.shareAttempt(key, token, leaseMillis,
                    sharing.isRead() ? "r" : "s" + sharing.permits());
            locked = Round.send(this.nodes, this.quorum, (node, answer) -> node.share(share, key, token, answer),
                    Taken::acquired);
        }
        try {
            // A semaphore's permit counts only in one slot on a majority: every answer is needed to find it.
            locked.await(validUntil, sharing.isSemaphore());
            refuseMismatch(key, sharing, locked);
            if (held(key, locked, sharing) && System.nanoTime() - validUntil < 0) {
                long fence = nextFence(key, locked, validUntil, !sharing.isExclusive());
                if (fence > 0) {
                    return new Outcome(fence, start, locked);
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            undo(key, token, sharing, locked);
            throw new LockException("Interrupted while acquiring lock '" + key + "'", ex);
        }
        catch (RuntimeException | Error ex) {
            undo(key, token, sharing, locked);
            throw ex;
        }
        undo(key, token, sharing, locked);
        return new Outcome(0, start, locked);
    }

    /** A node that has the key in use with another permit count fails the attempt (undone by the caller). */
    private void refuseMismatch(String key, Sharing sharing, Round<Taken> locked) {
        for (int i = 0; i < this.nodes.length; i++) {
            Taken taken = locked.answer(i);
            if (taken != null && taken.mismatch() >= 0) {
                long permits = taken.mismatch();
                throw sharing.mismatch(key, (permits == 0) ? Sharing.READ
                        : Sharing.permits((int) Math.min(permits, Integer.MAX_VALUE)));
            }
        }
    }

    /**
     * Whether a majority took it: for a semaphore's permit, a majority in one slot, and the permit's entries in
     * other slots are released at once (so that no node keeps a slot for a permit that counts elsewhere).
     */
    private boolean held(String key, Round<Taken> locked, Sharing sharing) {
        if (!sharing.isSemaphore()) {
            return locked.successes() >= this.quorum;
        }
        int[] bySlot = new int[sharing.permits()];
        int best = -1;
        for (int i = 0; i < this.nodes.length; i++) {
            Taken taken = locked.answer(i);
            if (taken != null && taken.acquired() && taken.slot() >= 0 && taken.slot() < bySlot.length
                    && ++bySlot[taken.slot()] >= this.quorum) {
                best = taken.slot();
            }
        }
        if (best < 0) {
            return false;
        }
        for (int i = 0; i < this.nodes.length; i++) {
            Taken taken = locked.answer(i);
            if (taken != null && taken.acquired() && taken.slot() != best) {
                this.nodes[i].releaseShare(key, taken.value(), 0, Round.Answer.ignored());
            }
        }
        return true;
    }

    /**
     * How many nodes answered the failed last attempt without an error, once every node answered or failed
     * (bounded by the command timeout, and the validity as a backstop): whether the lock is taken by someone
     * else or a majority is out of reach.
     */
    int reachable(Round<Taken> round, long leaseMillis) {
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
    private void undo(String key, String token, Sharing sharing, Round<Taken> attempt) {
        NodeCommand release = sharing.isExclusive() ? RedlockNode.release(key, token, 0) : null;
        attempt.whenAnswered(
                (index) -> release(this.nodes[index], key, token, release, Round.Answer.<Boolean>ignored()));
        // Best effort, without waiting: whatever the token took on any node goes.
        Round.<Boolean>send(this.nodes, this.quorum, (node, answer) -> release(node, key, token, release, answer),
                (released) -> released);
    }

    /**
     * Whatever the token holds on the node goes: a write lock's value ({@code release}, built once for every node),
     * or a share's entries ({@code release} null).
     */
    private static void release(RedlockNode node, String key, String token, @Nullable NodeCommand release,
            Round.Answer<Boolean> answer) {
        if (release != null) {
            node.release(release, answer);
        }
        else {
            node.releaseShare(key, token + ':', 0, answer);
        }
    }

    /**
     * The fencing token. A write lock's take raised the counter on each node that took the key, in the same step
     * (acquire.lua: one more than it was, or the node's clock in whole seconds, counted in microseconds, when it had
     * none), so the token is the largest value the majority returned; when a majority returned just that value, it
     * already stands on a majority and is the token with no further call (the common case: every node's counter went
     * up from the same value, or a key's first lock within one second of every node's clock).
     * Otherwise it is raised to on every node ("to at least": a node whose counter is already larger, raised by an
     * attempt that failed, confirms it too) and confirmed by a majority within the validity time. A share's take
     * only read the counters: its token is one more than the largest, or the largest of the nodes' clocks when that
     * is more, raised only past the counter (a token of its own, as shares hold the key together), and proposed
     * again past the largest counter found when another share came first.
     * <p>
     * Why tokens increase: a granted token stands on a majority of counters, counters only go up (until a day
     * without a raise, after which the nodes' clocks have passed every token), and any two majorities share a node,
     * whose counter the next holder's take raised past it. Counters expire a day after their last raise, so that a
     * key used once leaves nothing behind for good.
     * @return the token, or 0 when a majority did not confirm it in time
     */
    private long nextFence(String key, Round<Taken> locked, long validUntil, boolean share)
            throws InterruptedException {
        long fence = 0;
        int standing = 0;
        long clock = 0;
        for (int i = 0; i < this.nodes.length; i++) {
            Taken taken = locked.answer(i);
            if (taken != null && taken.acquired()) {
                long counter = share ? taken.counter() + 1 : taken.counter();
                standing = (counter > fence) ? 1 : (counter == fence) ? standing + 1 : standing;
                fence = Math.max(fence, counter);
                clock = Math.max(clock, taken.clock());
            }
        }
        if (!share && fence > 0 && standing >= this.quorum) {
            return fence;
        }
        fence = share ? Math.max(fence, clock) : fence;
        while (System.nanoTime() - validUntil < 0) {
            long proposed = fence;
            NodeCommand raise = RedlockNode.fence(key, proposed, share);
            Round<Long> raised = Round.send(this.nodes, this.quorum, (node, answer) -> node.raiseFence(raise, answer),
                    (stored) -> share ? stored == proposed : stored >= proposed);
            raised.await(validUntil, false);
            if (raised.successes() >= this.quorum) {
                return (System.nanoTime() - validUntil < 0) ? proposed : 0;
            }
            long highest = proposed;
            for (int i = 0; i < this.nodes.length; i++) {
                Long stored = raised.answer(i);
                highest = (stored != null) ? Math.max(highest, Math.abs(stored)) : highest;
            }
            if (!share || highest == proposed && raised.refused() == 0) {
                return 0;
            }
            // Another share of the key was given this token, or a larger one, first: propose past it.
            fence = highest + 1;
        }
        return 0;
    }

    /**
     * What an attempt came to.
     * @param fence the fencing token, or {@code 0} when the attempt failed (undone)
     * @param startNanos when the attempt was sent ({@link System#nanoTime()}): the lock's lease counts from here
     * @param round the acquisition's round, with every node's answer as it comes
     */
    record Outcome(long fence, long startNanos, Round<Taken> round) {
    }

    /**
     * A waiting writer's place in each node's queue: readers arriving after it wait (share.lua), and a key a
     * release hands it is taken over by its next attempt.
     * @param id {@code <store id>_w_<n>}, one per waiting take
     * @param entryMillis how long its queue entry stays valid unrefreshed
     * @param address the entry's {@code PUBLISH:<channel>}, in the hand-off namespace of the key prefix (nobody
     * listens: Redlock waits by retries)
     */
    record Waiter(String id, long entryMillis, String address) {
    }
}
