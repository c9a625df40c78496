package io.github.redislock.redis;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;

/**
 * Attempts and waiting for one application (one {@link RedisLockStore}): its threads that wait for a key
 * stand in one local {@link Line}; the application as a whole holds one entry in the key's Redis queue; a
 * release hands the lock to the application at the head of that queue, by storing the application's id as
 * the owner and publishing the key on its {@link HandoffChannel}, and the first thread of the line takes it
 * over with its next attempt. Redis alone decides who gets a lock: taking over rewrites the value to the
 * thread's own token in the attempt's round trip, so no two threads can take over the same hand-off, and a
 * hand-off is only ever used as Redis confirms it, with its lease counted from that confirmation.
 * <p>
 * Per key, this application is in one of these states; the transitions are caused by a thread arriving or
 * giving up, a reply of {@code acquire.lua} ({@code 1} free, {@code 2} taken over, {@code 0} taken), a
 * hand-off message, or a release by a thread here:
 * <pre>
 * state            event                                   next state
 * idle             wait 0: one attempt, never queues       held by T (1) / idle (0)
 * idle             hand-off message (forged, or late)      idle     (dropped, no Redis call)
 * idle             T may wait: joins the line first        trying
 * trying           reply 1 or 2                            held by T (others stay waiting); this
 *                                                          application's turn begins
 * trying           reply 0: the application is queued     waiting
 * waiting          timer (holder's TTL, at most 1 s)       trying   (refreshes the queue entry)
 * waiting          hand-off message                        handed over
 * waiting          its channel is subscribed (again)       trying   (a message may have been missed)
 * handed over      first waiter wakes and attempts         trying   (reply 2)
 * handed over      nobody waits                            leaving
 * waiting/trying   last waiter gives up while queued       leaving
 * held by T        T releases; U, first here, has waited   passed to U (no Redis round trip; the key
 *                  since the turn began (with rejoin:      keeps its value, U's fence is T's + 1)
 *                  whenever); within the bounds; T's lease surely not run out
 * passed to U      U claims it                             held by U (one extension round trip first
 *                                                          unless both are renewed with lease to spare)
 * passed to U      U gives up and nobody else waits        leaving, with the lock released in Redis
 * held by T        T releases, someone waits here but      released: handed to the next application
 *                  none of the above holds                 in the Redis queue (possibly this one); the
 *                                                          application's turn ends
 * held by T        T releases, nobody waits here           leaving (the release takes the entry out)
 * held by T        T releases before its minimum            kept (see the engine's KeptLocks): the key stays in
 *                  (holdAtLeast), whoever waits here       Redis, owned by nobody, until it expires; never
 *                                                          passed on; the turn ends; the first waiter here
 *                                                          looks at Redis at once (then times its next look
 *                                                          by the key's PTTL); queued applications are told
 *                                                          to look (a hand-off message), likewise
 * leaving          entry out; a thread joined meanwhile    trying at once (still counted queued if an
 *                                                          attempt queued it after the leave was decided:
 *                                                          that entry may outlive the leave)
 * leaving          entry out; nobody here                  idle
 * </pre>
 * "Leaving" and "handed over" are {@link QueueExit}'s, "passed to U" is {@link LocalHandover}'s (the cohort
 * hand-over), and when a first waiter looks at Redis unasked is {@link TimedLooks}'s; each line of waiting
 * threads is a {@link Line} in {@link Lines}. Only the first waiter talks to Redis; a thread that joins its
 * line before its first attempt is seen by every release here, and a first waiter only ever sleeps on a timer
 * while the application is queued (otherwise no hand-off can come, so it attempts at once): that is what keeps
 * a key from sitting free while this application waits for it. This class runs a waiting thread's steps: it
 * joins the line, claims or attempts, parks, and leaves the line having acquired or given up; a release here is
 * {@link Releases}'s.
 */
final class Waiting {

    private static final Log logger = LogFactory.getLog(Waiting.class);

    private final LockProtocol protocol;

    private final String clientId;

    private final HandoffChannel channel;

    private final Lines lines = new Lines();

    private final QueueExit exit;

    private final LocalHandover handover;

    private final TimedLooks looks = new TimedLooks();

    private final Releases releases;

    /**
     * @param channel the channel whose messages reach {@link #handedOver}
     * @param executor runs the give-up of queue entries, never on the thread that delivered a message, nor on
     * the thread that renews leases: what messages cause must never delay a renewal
     * @param lost told of a held lock found no longer ours
     */
    Waiting(LockProtocol protocol, HandoffChannel channel, String clientId, Executor executor,
            Consumer<HeldLock> lost) {
        this.protocol = protocol;
        this.channel = channel;
        this.clientId = clientId;
        this.exit = new QueueExit(protocol, clientId, executor, this.lines);
        this.handover = new LocalHandover(protocol, this.exit, lost);
        this.releases = new Releases(protocol, clientId, this.lines, this.handover);
    }

    /**
     * Takes the key for the token, waiting until the deadline.
     * @param renewed whether the lock is kept alive by renewal ({@code leaseMillis} is then the renewed lease)
     * @return the lock now held by the current thread, or {@code null} when the key stayed taken
     * @throws LockException if Redis fails or the thread is interrupted (nothing is then held)
     */
    @Nullable HeldLock acquire(LockKey key, String token, long leaseMillis, boolean renewed, long deadline) {
        if (deadline - System.nanoTime() <= 0) {
            return tryOnce(key, token, leaseMillis, renewed);
        }
        Line line = join(key);
        boolean done = false;
        try {
            while (true) {
                HeldLock lock = claimOrTry(line, key, token, leaseMillis, renewed);
                if (lock != null) {
                    done = true;
                    acquired(key, line, lock.handovers == 0);
                    return lock;
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    done = true;
                    giveUp(key, line);
                    return null;
                }
                park(key, line, remaining);
            }
        }
        finally {
            if (!done) {
                // Failed (Redis, interrupt, even an Error): never leave this thread standing in the line. An
                // attempt whose answer was lost may have queued the application: leave the queue to be sure.
                line.mayBeQueued();
                giveUp(key, line);
            }
        }
    }

    /** Wait 0: one attempt that neither queues nor takes over; threads already waiting here come first. */
    private @Nullable HeldLock tryOnce(LockKey key, String token, long leaseMillis, boolean renewed) {
        Line line = this.lines.get(key.name);
        if (line != null && line.hasWaiters()) {
            return null;
        }
        Attempt attempt = this.protocol.acquire(key, token, leaseMillis, null, 0);
        return attempt.isAcquired() ? HeldLock.taken(key, token, leaseMillis, renewed, attempt) : null;
    }

    /** Step 1: stand in the line before the first attempt, and listen for hand-offs of the key. */
    private Line join(LockKey key) {
        Line line = this.lines.join(key.name);
        boolean listening = false;
        try {
            if (this.channel.listen(key.name)) {
                // Not listened to until now: a hand-off may have been missed; look at Redis.
                line.tryNow();
            }
            listening = true;
        }
        finally {
            if (!listening) {
                giveUp(key, line);
            }
        }
        return line;
    }

    /** Step 2: the first waiter claims a lock passed to the line, or attempts in Redis when due. */
    private @Nullable HeldLock claimOrTry(Line line, LockKey key, String token, long leaseMillis, boolean renewed) {
        LocalGrant grant = line.claim();
        if (grant != null) {
            HeldLock lock = this.handover.claim(key, grant, leaseMillis, renewed);
            if (lock != null) {
                return lock;
            }
            // The key ran out before it could be claimed: nobody holds it here any more, ask Redis at once.
            line.tryNow();
        }
        Attempt attempt = tryIfFirst(line, key, token, leaseMillis);
        return (attempt != null) ? HeldLock.taken(key, token, leaseMillis, renewed, attempt) : null;
    }

    /**
     * Step 2b (2a is {@link LocalHandover#claim}): the first waiter attempts in Redis when due (a hand-off
     * arrived, or its timer ran out).
     */
    private @Nullable Attempt tryIfFirst(Line line, LockKey key, String token, long leaseMillis) {
        if (!line.startAttempt(System.nanoTime())) {
            return null;
        }
        Attempt attempt = this.protocol.acquire(key, token, leaseMillis, this.clientId, this.looks.queueEntryMillis());
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + key + "': attempt while waiting, " + attempt);
        }
        if (attempt.isAcquired()) {
            return attempt;
        }
        line.taken(System.nanoTime() + this.looks.untilHolderExpires(attempt.holderTtlMillis()));
        return null;
    }

    /** Step 3: park until a hand-off, the next timed look at Redis, becoming first, or the deadline. */
    private void park(LockKey key, Line line, long remaining) {
        long nanos = Math.min(remaining, line.parkNanos(System.nanoTime(), this.looks.maxUnnotifiedWaitNanos()));
        if (nanos > 0) {
            LockSupport.parkNanos(line, nanos);
        }
        if (Thread.interrupted()) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while waiting for lock '" + key + "'");
        }
    }

    /**
     * Step 4a: acquired. The next waiter, if any, carries on; the queue entry stays for the release to end. Taken
     * in Redis, the application's turn begins: the threads waiting now may be passed the lock in it. (A
     * lock passed to the line is never left behind here: only a holder passes one, and this thread just took
     * the key, so there was none; released all the same should Redis have disagreed.)
     */
    private void acquired(LockKey key, Line line, boolean inRedis) {
        LocalGrant orphan = (inRedis ? line.leaveTakingTurn() : line.leave()).orphan();
        if (orphan != null) {
            this.exit.leaveLater(key, orphan);
        }
        else {
            this.lines.retireIfIdle(key.name, line);
        }
    }

    /**
     * Step 4b: gave up (time out, interrupt, failure). The last waiter of a queued application leaves the
     * queue, and releases a lock passed to the line that nobody is left to claim.
     */
    private void giveUp(LockKey key, Line line) {
        Line.Departure departure = line.leave();
        LocalGrant orphan = departure.orphan();
        if (orphan != null || departure.leaveQueue()) {
            this.exit.leaveLater(key, orphan);
        }
        else {
            this.lines.retireIfIdle(key.name, line);
        }
    }

    /** A hand-off message (on the I/O thread): see {@link QueueExit#handedOver}. */
    void handedOver(String keyName) {
        this.exit.handedOver(keyName);
    }

    /** The channel of these keys is listened to now (on the I/O thread): see {@link Lines#lookNow}. */
    void lookNow(Predicate<String> keys) {
        this.lines.lookNow(keys);
    }

    /**
     * Releases a lock a thread here holds, to a thread waiting here or in Redis, keeping the key {@code keepMillis}
     * more when that is above 0 (holdAtLeast): see {@link Releases#release}.
     */
    boolean release(HeldLock lock, boolean wasHeld, long keepMillis) {
        return this.releases.release(lock, wasHeld, keepMillis);
    }

    /** Per key, how many threads of this application wait for it now (keys nobody waits for are left out). */
    Map<String, Integer> waitingThreads() {
        return this.lines.waitingThreads();
    }

    /** How long a first waiter may go without a hand-off before looking at Redis anyway (set by the store). */
    void maxUnnotifiedWait(Duration wait) {
        this.looks.maxUnnotifiedWait(wait);
    }

    /** See {@link RedisLockStore#setLocalHandoverLimit}. */
    void handoverLimit(int limit) {
        this.handover.handoverLimit(limit);
    }

    /** See {@link RedisLockStore#setLocalHandoverTimeLimit}. */
    void handoverTimeLimit(Duration limit) {
        this.handover.handoverTimeLimit(limit);
    }

    /** See {@link RedisLockStore#setLocalHandoverRejoin}. */
    void handoverRejoin(boolean rejoin) {
        this.handover.rejoin(rejoin);
    }

    /** Tests: the line of a key, if threads here wait for it or the application is queued. */
    @Nullable Line line(String keyName) {
        return this.lines.get(keyName);
    }
}
