package io.github.redislock.redis;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Sharing;

/**
 * Taking and waiting for shares (read locks, a semaphore's permits) for one application: unlike a write lock's
 * waiting ({@link Waiting}), every waiting acquisition stands in the key's Redis queue on its own, under a waiter
 * id of its own ({@code <client id>_<kind>_<n>}), so that Redis alone orders readers, writers and permits across
 * and within applications; there is no local line and no local hand-over (lock cohorting stays a write lock's).
 * A waiter is let in by whoever's script frees room (a release, a writer's release handing it the key, an attempt
 * that finds a lease run out): it is then among the key's holders under its waiter id and told on this
 * application's hand-off channel; its next attempt takes that place over under its own token and fence.
 * <p>
 * One waiting acquisition, from the first attempt to the end:
 * <pre>
 * state     event                                                    next state
 * (new)     wait 0: one attempt that never queues                    held (1) / gone (0)
 * (new)     may wait: listens on the hand-off channel, attempts      trying
 * trying    reply 1 (fresh) or 2 (let in)                            held
 * trying    reply 0: queued under its waiter id                      waiting
 * trying    another permit count (the script took the entry out)     gone, LockException
 * waiting   a hand-off message for the key (any waiter's)            trying
 * waiting   timer: the holder's or first share's lease, at most      trying (refreshes the queue entry)
 *           the bound of timed looks
 * waiting   the channel is subscribed (again)                        trying
 * waiting   the deadline                                             leaving, then gone (null)
 * any       interrupt or failure                                     leaving on the executor, then gone (throws)
 * leaving   share.lua release with the waiter id                     gone: its entry and any place it was let
 *                                                                    in to are out, the next waiters let in
 * </pre>
 * A message wakes every waiter of the key here, as it does not say whose it is; the one let in takes its place, the
 * others find the key as it is and wait again. Messages only make waiting fast: a waiter also looks at Redis when
 * the lease it waits for ends and at least once per {@link TimedLooks#maxUnnotifiedWaitNanos}, which keeps its queue
 * entry alive and finds a place whose message was lost.
 */
final class ShareWaiting {

    private static final Log logger = LogFactory.getLog(ShareWaiting.class);

    private final ShareProtocol protocol;

    private final HandoffChannel channel;

    private final String clientId;

    private final Executor executor;

    private final TimedLooks looks = new TimedLooks();

    /** Numbers this application's waiter ids. */
    private final AtomicLong waiters = new AtomicLong();

    /** Per key that threads here wait for: how many, and the messages received for it. */
    private final Map<String, Waiters> keys = new ConcurrentHashMap<>();

    /**
     * @param executor gives up the queue entry of a waiter that failed or was interrupted (never the thread that
     * delivered a message, nor the renewal thread)
     */
    ShareWaiting(ShareProtocol protocol, HandoffChannel channel, String clientId, Executor executor) {
        this.protocol = protocol;
        this.channel = channel;
        this.clientId = clientId;
        this.executor = executor;
    }

    /**
     * Takes a share of the key for the token, waiting until the deadline.
     * @return the share now held, or {@code null} when the key stayed full (nothing is then held or queued)
     * @throws LockException if the key is in use with another permit count, Redis fails or the thread is
     * interrupted (nothing is then held)
     */
    @Nullable HeldLock acquire(LockKey key, String token, long leaseMillis, boolean renewed, long deadline,
            Sharing sharing) {
        if (deadline - System.nanoTime() <= 0) {
            Attempt attempt = this.protocol.take(key, token, leaseMillis, sharing, null, 0, null);
            return attempt.isAcquired() ? HeldLock.shared(key, token, leaseMillis, renewed, sharing, attempt) : null;
        }
        String waiter = this.clientId + '_' + ShareProtocol.kind(sharing) + '_'
                + Long.toString(this.waiters.incrementAndGet(), 36);
        Waiters here = this.keys.compute(key.name, (name, known) -> ((known != null) ? known : new Waiters()).join());
        boolean done = false;
        try {
            this.channel.listen(key.name);
            while (true) {
                long seen = here.messages();
                Attempt attempt = this.protocol.take(key, token, leaseMillis, sharing, waiter,
                        this.looks.queueEntryMillis(), this.channel.address(key.name));
                if (attempt.isAcquired()) {
                    done = true;
                    return HeldLock.shared(key, token, leaseMillis, renewed, sharing, attempt);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    done = true;
                    giveUp(key, waiter);
                    return null;
                }
                here.await(seen, Math.min(remaining, this.looks.untilHolderExpires(attempt.holderTtlMillis())), key);
            }
        }
        finally {
            this.keys.computeIfPresent(key.name, (name, known) -> known.leave());
            if (!done) {
                // Failed or interrupted while queued (or let in): the place goes, off this thread.
                leaveLater(key, waiter);
            }
        }
    }

    /** The deadline passed: out of the queue, and out of a place let in to meanwhile (which goes to the next). */
    private void giveUp(LockKey key, String waiter) {
        try {
            this.protocol.release(key, null, waiter, 0);
        }
        catch (LockException ex) {
            logger.warn("Could not leave the queue of lock '" + key + "'; the entry expires by itself, a place let "
                    + "in to meanwhile with its lease", ex);
        }
    }

    private void leaveLater(LockKey key, String waiter) {
        try {
            this.executor.execute(() -> giveUp(key, waiter));
        }
        catch (RejectedExecutionException ex) {
            // Closed: the entry expires by itself.
        }
    }

    /** Releases a share, or keeps it {@code keepMillis} more (holdAtLeast); whether it was still held. */
    boolean release(HeldLock share, long keepMillis) {
        return this.protocol.release(share.key, share.value, null, keepMillis);
    }

    /** A hand-off message (on the I/O thread): every waiter of the key here looks at Redis. */
    void handedOver(String keyName) {
        Waiters here = this.keys.get(keyName);
        if (here != null) {
            here.told();
        }
    }

    /** The hand-off channel of these keys is listened to now: a message sent before may have been missed. */
    void lookNow(Predicate<String> keyNames) {
        this.keys.forEach((name, here) -> {
            if (keyNames.test(name)) {
                here.told();
            }
        });
    }

    /** Per key, how many threads of this application wait for a share of it now. */
    Map<String, Integer> waitingThreads() {
        Map<String, Integer> waiting = new TreeMap<>();
        this.keys.forEach((name, here) -> waiting.put(name, here.count()));
        return waiting;
    }

    /** See {@link Waiting#maxUnnotifiedWait}. */
    void maxUnnotifiedWait(Duration wait) {
        this.looks.maxUnnotifiedWait(wait);
    }

    /**
     * The threads here waiting for shares of one key, and the messages received for it; changed only under the
     * map's lock ({@link #join}, {@link #leave}) or its own.
     */
    private static final class Waiters {

        /** Written under the map's lock, read by {@link #waitingThreads} without it. */
        private volatile int count;

        private long messages;

        Waiters join() {
            this.count++;
            return this;
        }

        /** @return this, or {@code null} (out of the map) when nobody waits any more */
        @Nullable Waiters leave() {
            return (--this.count == 0) ? null : this;
        }

        int count() {
            return this.count;
        }

        synchronized long messages() {
            return this.messages;
        }

        synchronized void told() {
            this.messages++;
            notifyAll();
        }

        /** Waits until a message after {@code seen}, or {@code nanos}. */
        synchronized void await(long seen, long nanos, LockKey key) {
            long until = System.nanoTime() + nanos;
            try {
                for (long left = nanos; this.messages == seen && left > 0; left = until - System.nanoTime()) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new LockException("Interrupted while waiting for lock '" + key + "'");
            }
        }
    }
}
