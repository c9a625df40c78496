package io.github.redislock.engine;

import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;

import io.github.redislock.LockException;
import io.github.redislock.LockLossDetection;
import io.github.redislock.LockRequest;

/**
 * Extends one held lock for {@link LockEngine} ({@link io.github.redislock.LockHandle#extend}) through the store's
 * own {@link LockStore#extend}, the call renewal makes, so every leased store extends the way it renews. An
 * extension gives the lock a fixed lease counted from when it was sent; a renewed lock is taken out of renewal
 * first (waiting for a renewal round under way), so that no round sends the renewed lease after it; a call of
 * that round still on its way inside the store (to Redlock's slow node) is the store's to order first
 * ({@link LockStore#extend}).
 * <pre>
 * state of the entry          event                                            outcome
 * HELD, lease left            the store answers EXTENDED before the old lease   true; lease L from the call, fixed,
 *                             ran out by this JVM's clock                        holdAtLeast counted from the call
 * HELD, lease left            the store answers NOT_HELD, or EXTENDED only     false; LOST (RENEWAL), signalled
 *                             after the old lease ran out                        once
 * HELD, lease ran out         (nothing sent)                                   false; LOST (RENEWAL), signalled once
 * LOST                        (nothing sent)                                   false
 * HELD, lease left            the store fails, or answers UNKNOWN              LockException; the lease that ends
 *                                                                              first of the old and the new; a
 *                                                                              renewed lock is renewed again
 * </pre>
 * A store without leases (ZooKeeper) gets the same call: it sets its own timer of the fixed lease anew; the engine
 * keeps no lease clock for it.
 */
final class Extender {

    private final LockStore store;

    private final Renewer renewer;

    private final BiConsumer<Entry, LockLossDetection> lost;

    /** @param lost marks the entry lost and signals it, once */
    Extender(LockStore store, Renewer renewer, BiConsumer<Entry, LockLossDetection> lost) {
        this.store = store;
        this.renewer = renewer;
        this.lost = lost;
    }

    /**
     * Checks an extension's arguments before anything is sent: a lease as a request's fixed lease may be, and a
     * minimum no longer than it.
     * @throws IllegalArgumentException naming what is wrong
     */
    static void check(Duration lease, Duration holdAtLeast) {
        if (lease == null || lease.compareTo(Duration.ofMillis(1)) < 0 || lease.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("An extension's lease must be from 1 ms to "
                    + LockRequest.MAX_LEASE.toDays() + " days, got " + lease);
        }
        if (holdAtLeast == null || holdAtLeast.isNegative() || holdAtLeast.compareTo(lease) > 0) {
            throw new IllegalArgumentException("An extension's holdAtLeast must be from zero to its lease (" + lease
                    + "), got " + holdAtLeast + ": the lock would expire before the minimum");
        }
    }

    /** See the table above. */
    boolean extend(Entry entry, long leaseMillis, long holdAtLeastNanos) {
        if (entry.isLost()) {
            return false;
        }
        boolean wasRenewed = entry.isRenewed();
        if (wasRenewed) {
            this.renewer.stop(entry);
            entry.stopRenewal();
        }
        long sentAt = System.nanoTime();
        if (entry.leaseRanOut(sentAt)) {
            this.lost.accept(entry, LockLossDetection.RENEWAL);
            return false;
        }
        long validNanos = this.store.leased() ? this.store.validNanos(leaseMillis) : Long.MAX_VALUE;
        Extension answer;
        try {
            answer = this.store.extend(List.of(entry.lock), leaseMillis)[0];
        }
        catch (RuntimeException ex) {
            unconfirmed(entry, sentAt, leaseMillis, validNanos, wasRenewed);
            throw (ex instanceof LockException) ? ex
                    : new LockException("Could not extend lock '" + entry.lock.key() + "'", ex);
        }
        if (answer == Extension.UNKNOWN) {
            unconfirmed(entry, sentAt, leaseMillis, validNanos, wasRenewed);
            throw new LockException("The store could not confirm the extension of lock '" + entry.lock.key()
                    + "'; it keeps the lease that ends first of its old one and the one asked for");
        }
        long answeredAt = System.nanoTime();
        if (answer == Extension.NOT_HELD || entry.leaseRanOut(answeredAt)) {
            this.lost.accept(entry, LockLossDetection.RENEWAL);
            return false;
        }
        if (validNanos != Long.MAX_VALUE) {
            entry.extendedTo(sentAt, leaseMillis, validNanos, true);
        }
        entry.holdAtLeastFrom(answeredAt, holdAtLeastNanos);
        return true;
    }

    /** The store may or may not have applied the extension: the earlier end counts, renewal goes on as before. */
    private void unconfirmed(Entry entry, long sentAt, long leaseMillis, long validNanos, boolean wasRenewed) {
        if (validNanos != Long.MAX_VALUE) {
            entry.extendedTo(sentAt, leaseMillis, validNanos, false);
        }
        if (wasRenewed && !entry.isLost()) {
            entry.resumeRenewal();
            this.renewer.register(entry, validNanos);
        }
    }
}
