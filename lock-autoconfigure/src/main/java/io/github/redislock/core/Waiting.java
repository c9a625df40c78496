package io.github.redislock.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;

/**
 * Attempts and waiting for one application (one {@link RedisLockClient}): its threads that wait for a key
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
 *                  since this application's turn began;   keeps its value, U's fence is T's + 1)
 *                  within the bounds; T's lease surely runs
 * passed to U      U claims it                             held by U (one extension round trip first
 *                                                          unless both are renewed with lease to spare)
 * passed to U      U gives up and nobody else waits        leaving, with the lock released in Redis
 * held by T        T releases, someone waits here but      released: handed to the next application
 *                  none of the above holds                 in the Redis queue (possibly this one); the
 *                                                          application's turn ends
 * held by T        T releases, nobody waits here           leaving (the release takes the entry out)
 * held by T        T releases before its minimum            kept (see {@link KeptLocks}): the key stays in
 *                  (holdAtLeast), whoever waits here       Redis, owned by nobody, until it expires; never
 *                                                          passed on; the turn ends; the first waiter here
 *                                                          looks at Redis at once (then times its next look
 *                                                          by the key's PTTL); queued applications are told
 *                                                          to look (a hand-off message), likewise
 * leaving          entry out; a thread joined meanwhile    trying at once
 * leaving          entry out; nobody here                  idle
 * </pre>
 * "Leaving" runs {@code unlock.lua} with this application's id: it takes the queue entry out and passes a
 * hand-off that reached the application on to the next one, so a key is never left handed to nobody. Only
 * the first waiter talks to Redis; a thread that joins its line before its first attempt is seen by every
 * release here, and a first waiter only ever sleeps on a timer while the application is queued (otherwise no
 * hand-off can come, so it attempts at once): that is what keeps a key from sitting free while this
 * application waits for it. Messages
 * only make this fast: the first waiter looks at Redis when the holder's lease would end and at least once
 * per {@link #maxUnnotifiedWait}, which also finds a hand-off whose message was lost and keeps the queue
 * entry (valid three times that long) alive.
 * <p>
 * Cohort hand-over (after "lock cohorting", Dice, Marathe and Shavit): a thread taking the key in Redis
 * begins the application's turn. A release by a thread here passes the lock directly to the first thread
 * waiting here if that one was already waiting when the turn began, at most {@link #handoverLimit} times in
 * a row and while the turn is younger than {@link #handoverTimeNanos}; otherwise the release goes to Redis
 * and the next queued application gets its turn. So each thread waiting gets the lock once per turn, and a
 * thread that comes back for it waits for the application's next turn like everyone else: waits stay even.
 * Every holder gets its own fencing token, one above the previous holder's, and a release that ends such a
 * run passes the last token
 * used to Redis, where the next token is counted on from it.
 */
final class Waiting {

    private static final Log logger = LogFactory.getLog(Waiting.class);

    private final LockProtocol protocol;

    private final String clientId;

    /**
     * Runs the give-up of a queue entry, never on the thread that delivered a message, nor on the thread that
     * renews leases: what messages cause must never delay a renewal.
     */
    private final Executor executor;

    private final Map<String, Line> lines = new ConcurrentHashMap<>();

    /** How long after leaving a key's queue a hand-off message for it is still passed on. */
    private static final long LEFT_LATELY_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Most keys remembered as left lately. */
    private static final int LEFT_LATELY_MAX_KEYS = 1024;

    /** Keys whose queue this application left lately, with until when a hand-off message for it counts. */
    private final Map<String, Long> leftLately = new ConcurrentHashMap<>();

    /** Keys whose pass-on of a hand-off message is queued: one at a time per key, whatever a flood sends. */
    private final Set<String> passingOn = ConcurrentHashMap.newKeySet();

    private final HandoffChannel channel;

    /** Longest a first waiter goes without looking at Redis (bounds the cost of a lost message). */
    private volatile long maxUnnotifiedWaitNanos = TimeUnit.SECONDS.toNanos(1);

    /** Most local hand-overs in a row before a release goes to Redis (0: never pass a lock on locally). */
    private volatile int handoverLimit = RedisLockClient.DEFAULT_LOCAL_HANDOVER_LIMIT;

    /** No local hand-over once the application has held the key in Redis this long. */
    private volatile long handoverTimeNanos = RedisLockClient.DEFAULT_LOCAL_HANDOVER_TIME_LIMIT.toNanos();

    /** Told of a held lock found no longer ours (marks and signals it). */
    private final Consumer<HeldLock> lost;

    /**
     * @param channel the channel whose messages reach {@link #handedOver}
     * @param lost told of a held lock found no longer ours
     */
    Waiting(LockProtocol protocol, HandoffChannel channel, String clientId, Executor executor,
            Consumer<HeldLock> lost) {
        this.protocol = protocol;
        this.lost = lost;
        this.channel = channel;
        this.clientId = clientId;
        this.executor = executor;
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
        return attempt.isAcquired() ? held(key, token, leaseMillis, renewed, attempt) : null;
    }

    private static HeldLock held(LockKey key, String token, long leaseMillis, boolean renewed, Attempt attempt) {
        return new HeldLock(key, LockValue.of(token, attempt.fence()), attempt.fence(), leaseMillis, renewed,
                attempt.sentAtNanos(), attempt.isHandedOver());
    }

    /** Step 1: stand in the line before the first attempt, and listen for hand-offs of the key. */
    private Line join(LockKey key) {
        while (true) {
            Line line = this.lines.computeIfAbsent(key.name, (name) -> new Line());
            if (line.join()) {
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
            // Retired just now: join the line that replaces it.
        }
    }

    /** Step 2: the first waiter claims a lock passed to the line, or attempts in Redis when due. */
    private @Nullable HeldLock claimOrTry(Line line, LockKey key, String token, long leaseMillis, boolean renewed) {
        LocalGrant grant = line.claim();
        if (grant != null) {
            HeldLock lock = claim(key, grant, leaseMillis, renewed);
            if (lock != null) {
                return lock;
            }
            // The key ran out before it could be claimed: nobody holds it here any more, ask Redis at once.
            line.tryNow();
        }
        Attempt attempt = tryIfFirst(line, key, token, leaseMillis);
        return (attempt != null) ? held(key, token, leaseMillis, renewed, attempt) : null;
    }

    /**
     * Step 2a: takes a lock passed on by a holder here. With at least half of the claimer's lease left on the
     * key, a renewed lock with the same lease is used as it is (the renewer keeps it alive from here), and any
     * other is used at once while a compare-and-extend to the claimer's own lease goes out without waiting
     * (where the transport allows); the lock counts as held until the key's current lease ends until that
     * extension is confirmed, and is signalled lost should it find the key no longer ours. Otherwise the
     * extension comes first, one round trip, which also confirms the key is still ours.
     * @return the lock, or {@code null} when the key turned out no longer ours (its lease ran out meanwhile)
     */
    private @Nullable HeldLock claim(LockKey key, LocalGrant grant, long leaseMillis, boolean renewed) {
        long now = System.nanoTime();
        long leaseNanos = TimeUnit.MILLISECONDS.toNanos(leaseMillis);
        if (grant.expiresAtNanos() - now > leaseNanos / 2) {
            // Held until the key's current lease ends, or until this holder's own lease would end if that is
            // sooner: an extension to a shorter lease may already have shortened the key when its reply comes.
            long leaseFrom = Math.min(grant.expiresAtNanos() - leaseNanos, now);
            HeldLock lock = HeldLock.claimed(key, grant, leaseMillis, renewed, leaseFrom);
            if (renewed && grant.renewed() && grant.leaseMillis() == leaseMillis) {
                return lock;
            }
            CompletionStage<Boolean> extension = this.protocol.extendWithoutWaiting(lock, leaseMillis);
            if (extension != null) {
                extension.whenComplete((extended, ex) -> extendedWithoutWaiting(lock, now, extended, ex));
                return lock;
            }
        }
        HeldLock lock = HeldLock.claimed(key, grant, leaseMillis, renewed, now);
        boolean extended;
        try {
            extended = this.protocol.renew(List.of(lock), leaseMillis)[0];
        }
        catch (RuntimeException ex) {
            // Unknown whether the key is still ours: release it (compare-and-release), or it expires.
            this.executor.execute(() -> leaveQueueOrRelease(key, grant));
            throw ex;
        }
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + key + "': passed on by a thread of this application, "
                    + (extended ? "extended to " + leaseMillis + " ms" : "but its lease had run out"));
        }
        return extended ? lock : null;
    }

    /** The reply to an extension sent without waiting for it (on the I/O thread). */
    private void extendedWithoutWaiting(HeldLock lock, long sentAt, @Nullable Boolean extended,
            @Nullable Throwable failure) {
        if (failure != null) {
            // Still held until the key's lease ends, as far as anyone knows: the release checks in Redis.
            logger.warn("Could not extend lock '" + lock.key + "' passed on within this application to its new "
                    + "holder's lease; it keeps the lease it had", failure);
        }
        else if (Boolean.TRUE.equals(extended)) {
            lock.extended(sentAt);
        }
        else {
            this.lost.accept(lock);
        }
    }

    /** Step 2b: the first waiter attempts in Redis when due (a hand-off arrived, or its timer ran out). */
    private @Nullable Attempt tryIfFirst(Line line, LockKey key, String token, long leaseMillis) {
        if (!line.startAttempt(System.nanoTime())) {
            return null;
        }
        Attempt attempt = this.protocol.acquire(key, token, leaseMillis, this.clientId, queueEntryMillis());
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + key + "': attempt while waiting, " + attempt);
        }
        if (attempt.isAcquired()) {
            return attempt;
        }
        line.taken(System.nanoTime() + untilHolderExpires(attempt.holderTtlMillis()));
        return null;
    }

    /** Step 3: park until a hand-off, the next timed look at Redis, becoming first, or the deadline. */
    private void park(LockKey key, Line line, long remaining) {
        long nanos = Math.min(remaining, line.parkNanos(System.nanoTime(), this.maxUnnotifiedWaitNanos));
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
            this.executor.execute(() -> leaveQueueOrRelease(key, orphan));
        }
        else {
            retireIfIdle(key.name, line);
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
            this.executor.execute(() -> leaveQueueOrRelease(key, orphan));
        }
        else {
            retireIfIdle(key.name, line);
        }
    }

    /**
     * A hand-off message (on the I/O thread): the first waiter takes it over. With nobody waiting here (the
     * last waiter is leaving, or left the key's queue lately) it is passed on to the next application, once per
     * key however many messages come. A message is not trusted (any client allowed to publish on the channel
     * can send one): for a key this application neither waits for nor left within {@link #LEFT_LATELY_NANOS}
     * it is dropped without a Redis call. Leaving passed on any hand-off that had reached the application; one
     * can come later only when an attempt whose answer was lost queued the application again after it left.
     */
    void handedOver(String keyName) {
        Line line = this.lines.get(keyName);
        if (line == null && !leftLately(keyName)) {
            logger.debug("Hand-off message for a lock this application neither waits for nor left lately; dropped");
            return;
        }
        boolean taken = line != null && line.handedOver();
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + keyName + "' handed to this application; "
                    + (taken ? "its first waiter takes it over" : "nobody waits here, passing it on"));
        }
        if (!taken && this.passingOn.add(keyName)) {
            LockKey key = new LockKey(keyName);
            try {
                this.executor.execute(() -> {
                    this.passingOn.remove(keyName);
                    leaveQueueOrRelease(key, null);
                });
            }
            catch (RejectedExecutionException ex) {
                // Closed: the key expires with its lease.
                this.passingOn.remove(keyName);
            }
        }
    }

    /**
     * The channel of these keys is listened to now (on the thread that read the confirmation): a hand-off
     * sent before, while it was not, was missed, so the first waiter of each of their lines looks at Redis.
     */
    void lookNow(Predicate<String> keys) {
        this.lines.forEach((keyName, line) -> {
            if (keys.test(keyName)) {
                line.tryNow();
            }
        });
    }

    /**
     * Releases a lock a thread here holds: passes it to the next thread waiting here while the cohort is
     * within its bounds, else in Redis. If nobody here waits for the key the release also takes this
     * application out of the key's queue; a thread that joined meanwhile then looks at Redis at once, as its
     * queue entry may have gone with it.
     * @param wasHeld false when the lock had already been found lost: it then only goes to Redis
     * @return true when released or passed on, false when the key was no longer ours
     */
    boolean release(HeldLock lock, boolean wasHeld) {
        return release(lock, wasHeld, 0);
    }

    /**
     * {@link #release(HeldLock, boolean)}, keeping the key {@code keepMillis} more when that is above 0
     * (holdAtLeast): such a release is never passed to a thread here, and ends the application's turn; the key
     * stays in Redis, owned by nobody, until it expires, so threads waiting here wait for that expiry like every
     * other application. Their first one looks at Redis at once, to time its next look by the key's PTTL.
     */
    boolean release(HeldLock lock, boolean wasHeld, long keepMillis) {
        LockKey key = lock.key;
        Line line = this.lines.get(key.name);
        if (line != null && wasHeld && keepMillis == 0 && mayPassOn(lock) && line.offer(lock.passOn())) {
            if (logger.isDebugEnabled()) {
                logger.debug("Lock '" + key + "': passed to the next thread of this application (hand-over "
                        + (lock.handovers + 1) + " since taken in Redis)");
            }
            return true;
        }
        if (line != null) {
            line.turnEnds();
        }
        boolean leaving = line != null && line.releaseLeaves();
        if (logger.isDebugEnabled()) {
            logger.debug("Lock '" + key + "': releasing" + (leaving ? ", leaving its queue (nobody waits here)" : ""));
        }
        try {
            return this.protocol.release(key, lock.value, leaving ? this.clientId : null, lastLocalFence(lock),
                    keepMillis);
        }
        finally {
            if (leaving && !line.leftQueue()) {
                retireIfIdle(key.name, line);
            }
            else if (!leaving && keepMillis > 0 && line != null) {
                line.tryNow();
            }
        }
    }

    /** Within the cohort's bounds, and the lease surely not run out (or the release must check in Redis). */
    private boolean mayPassOn(HeldLock lock) {
        long now = System.nanoTime();
        return lock.handovers < this.handoverLimit && now - lock.tenureStartNanos < this.handoverTimeNanos
                && lock.leaseLeftNanos(now) > 0;
    }

    /** The token a release must count on from: the last one used here, if local hand-overs went past Redis's. */
    private static long lastLocalFence(HeldLock lock) {
        return (lock.handovers > 0) ? lock.fence : LockProtocol.NO_FENCE;
    }

    /**
     * Takes this application out of the key's queue, passing on any hand-off to it, and releases a lock
     * passed to its line that nobody claimed; unless a thread waits here: that one takes over instead. A
     * thread that joins while this is on its way looks at Redis again afterwards, as its queue entry may have
     * gone with ours.
     */
    private void leaveQueueOrRelease(LockKey key, @Nullable LocalGrant orphan) {
        Line line = this.lines.get(key.name);
        if (line != null && ((orphan != null) ? line.offer(orphan) : line.tryNow())) {
            return;
        }
        try {
            if (orphan != null) {
                this.protocol.release(key, orphan.value(), this.clientId, orphan.fence());
            }
            else {
                this.protocol.release(key, LockValue.anyFenceOf(this.clientId), this.clientId, LockProtocol.NO_FENCE);
            }
        }
        catch (LockException ex) {
            logger.warn("Could not leave the queue of lock '" + key + "'; the entry expires by itself and a lock "
                    + "held by or handed to this application meanwhile expires with its lease", ex);
        }
        left(key.name);
        Line now = this.lines.get(key.name);
        if (now != null && !now.leftQueue()) {
            retireIfIdle(key.name, now);
        }
    }

    /** Remembers, for a while, that this application left the key's queue (see {@link #handedOver}). */
    private void left(String keyName) {
        long now = System.nanoTime();
        if (this.leftLately.size() >= LEFT_LATELY_MAX_KEYS) {
            this.leftLately.values().removeIf((until) -> until - now <= 0);
            if (this.leftLately.size() >= LEFT_LATELY_MAX_KEYS) {
                // Bounded: a key not remembered only loses the pass-on of a late hand-off (it expires instead).
                return;
            }
        }
        this.leftLately.put(keyName, now + LEFT_LATELY_NANOS);
    }

    /** Whether this application left the key's queue lately; forgets it, so one leave allows one pass-on. */
    private boolean leftLately(String keyName) {
        Long until = this.leftLately.remove(keyName);
        return until != null && until - System.nanoTime() > 0;
    }

    private void retireIfIdle(String keyName, Line line) {
        if (line.retireIfIdle()) {
            this.lines.remove(keyName, line);
        }
    }

    /**
     * How long to wait for a hand-off before looking at Redis anyway: until the holder's lease runs out (an
     * expiry hands nothing on), with jitter so applications do not all look at the same instant, and never
     * longer than the bound, in case a message was lost and to keep the queue entry fresh.
     */
    private long untilHolderExpires(long ttlMillis) {
        if (ttlMillis < 0) {
            // -1: the key has no expiry at all (someone else's lock without a lease): only a release ends it.
            return this.maxUnnotifiedWaitNanos;
        }
        long ttl = TimeUnit.MILLISECONDS.toNanos(ttlMillis);
        long jitter = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2) + 1);
        return Math.min(ttl + jitter, this.maxUnnotifiedWaitNanos);
    }

    /** A queue entry outlives three missed refreshes. */
    private long queueEntryMillis() {
        return Math.max(1000, 3 * TimeUnit.NANOSECONDS.toMillis(this.maxUnnotifiedWaitNanos));
    }

    /** Per key, how many threads of this application wait for it now (keys nobody waits for are left out). */
    Map<String, Integer> waitingThreads() {
        Map<String, Integer> waiting = new TreeMap<>();
        this.lines.forEach((keyName, line) -> {
            int threads = line.waiterCount();
            if (threads > 0) {
                waiting.put(keyName, threads);
            }
        });
        return waiting;
    }

    /** Tests: how long a first waiter may go without a hand-off before looking at Redis anyway. */
    void maxUnnotifiedWait(Duration wait) {
        this.maxUnnotifiedWaitNanos = wait.toNanos();
    }

    /** See {@link RedisLockClient#setLocalHandoverLimit}. */
    void handoverLimit(int limit) {
        this.handoverLimit = limit;
    }

    /** See {@link RedisLockClient#setLocalHandoverTimeLimit}. */
    void handoverTimeLimit(Duration limit) {
        this.handoverTimeNanos = limit.toNanos();
    }

    /** Tests: the line of a key, if threads here wait for it or the application is queued. */
    @Nullable Line line(String keyName) {
        return this.lines.get(keyName);
    }
}
