package io.github.redislock.redis;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.engine.Extension;
import io.github.redislock.engine.StoreLock;
import io.github.redislock.redis.support.KeySlots;

/**
 * The single-Redis store's renewal round: every renewed write lock of a hash slot extended by one {@code renew.lua}
 * (compare-and-extend: a key released meanwhile, or someone else's, is left alone), so one round trip on a
 * standalone or Sentinel connection and one per slot on a cluster; the shares (read locks, permits) of a slot by
 * one {@code share-renew.lua} more, sent only when there are any. Each answer goes to its lock before it goes to
 * the engine: extended from when the round trip was sent, or lost.
 */
final class SlotRenewals {

    private final LockProtocol protocol;

    private final ShareProtocol shares;

    private final boolean clustered;

    SlotRenewals(LockProtocol protocol, ShareProtocol shares, boolean clustered) {
        this.protocol = protocol;
        this.shares = shares;
        this.clustered = clustered;
    }

    /**
     * Extends these {@link HeldLock}s. A slot whose round trip fails leaves its locks {@link Extension#UNKNOWN}
     * and the other slots' answers stand; when every slot fails, the first failure is thrown (the engine then
     * counts them all unknown).
     */
    Extension[] extend(List<StoreLock> locks, long leaseMillis) {
        Extension[] extended = new Extension[locks.size()];
        RuntimeException failure = null;
        int answered = 0;
        for (List<Integer> group : bySlot(locks).values()) {
            List<HeldLock> batch = new ArrayList<>(group.size());
            for (int index : group) {
                batch.add((HeldLock) locks.get(index));
            }
            long sentAt = System.nanoTime();
            boolean[] answers;
            try {
                answers = renew(batch, leaseMillis);
            }
            catch (RuntimeException ex) {
                failure = (failure != null) ? failure : ex;
                group.forEach((index) -> extended[index] = Extension.UNKNOWN);
                continue;
            }
            answered++;
            for (int i = 0; i < answers.length; i++) {
                HeldLock lock = batch.get(i);
                if (answers[i]) {
                    lock.extended(sentAt, leaseMillis);
                }
                else {
                    lock.markLost();
                }
                extended[group.get(i)] = answers[i] ? Extension.EXTENDED : Extension.NOT_HELD;
            }
        }
        if (failure != null && answered == 0) {
            throw failure;
        }
        return extended;
    }

    /** One slot's locks: write locks by renew.lua, shares by share-renew.lua, each only when there are any. */
    private boolean[] renew(List<HeldLock> batch, long leaseMillis) {
        List<HeldLock> shared = new ArrayList<>(0);
        List<HeldLock> exclusive = new ArrayList<>(batch.size());
        for (HeldLock lock : batch) {
            (lock.isShare() ? shared : exclusive).add(lock);
        }
        if (shared.isEmpty()) {
            return this.protocol.renew(batch, leaseMillis);
        }
        boolean[] exclusiveAnswers = exclusive.isEmpty() ? new boolean[0] : this.protocol.renew(exclusive, leaseMillis);
        boolean[] sharedAnswers = this.shares.renew(shared, leaseMillis);
        boolean[] answers = new boolean[batch.size()];
        int e = 0;
        int s = 0;
        for (int i = 0; i < answers.length; i++) {
            answers[i] = batch.get(i).isShare() ? sharedAnswers[s++] : exclusiveAnswers[e++];
        }
        return answers;
    }

    /** Indexes of the locks per hash slot (a script may only touch keys of one slot); all in one off a cluster. */
    private Map<Integer, List<Integer>> bySlot(List<StoreLock> locks) {
        Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
        for (int i = 0; i < locks.size(); i++) {
            int slot = this.clustered ? KeySlots.slot(locks.get(i).key()) : 0;
            groups.computeIfAbsent(slot, (any) -> new ArrayList<>()).add(i);
        }
        return groups;
    }
}
