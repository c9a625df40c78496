package io.github.redislock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockLossDetection;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The lock engine: takes, renews and releases locks in Redis. It knows keys, tokens, fencing tokens and
 * leases, and nothing of annotations or expressions; {@code DistributedLockTemplate} and the
 * {@code @DistributedLock} aspect are thin front ends over it. Internal API: its signature may change
 * between minor versions.
 * <p>
 * Protocol, for one key:
 * <ul>
 * <li>acquire: {@code acquire.lua}, one round trip: if the key is free, store our fresh random token with the
 * lease as TTL and issue the next fencing token; if it already holds our token (a replayed command), succeed
 * again without counting twice; otherwise return how long the holder's lease has left;</li>
 * <li>wait: subscribe to the key's release channel (one subscription connection per client), try again, then
sleep until a release wakes this waiter or the holder's lease would have run out, and try again; one
waiter per JVM is woken per release;</li>
 * <li>renew (locks without a fixed lease): {@code renew.lua} for all held locks at once, every third of the
 * lease, extending only keys that still hold our token;</li>
 * <li>release: {@code unlock.lua} (compare-and-delete, then publish on the release channel). A key that no
 * longer holds our token is never deleted; finding that is reported as a lost lock.</li>
 * </ul>
 * Scripts run through EVALSHA, falling back to EVAL when the server's script cache is empty (after a
 * restart). Reentrancy: the thread holding a key that asks for it again gets a nested handle on the same
 * Redis lock, released when the outermost handle closes; other threads are never let in.
 * <p>
 * Redis errors (refused connection, command timeout, error reply) surface as {@link LockException} naming
 * the key, with the client's exception as cause. How long a command may take is the connection's command
 * timeout ({@code spring.data.redis.timeout}).
 */
public final class RedisLockClient implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(RedisLockClient.class);

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            RedisLockClient.class.getClassLoader());

    static final long TAKEN = 0;

    static final long ACQUIRED = 1;

    static final long HANDED_OVER = 2;

    private final LockCommands redis;

    private final RedisConnectionFactory connectionFactory;

    /** Whether hand-off messages go by sharded pub/sub; {@code null} until first needed. */
    private volatile Boolean sharded;

    private final String keyPrefix;

    private final long renewedLeaseMillis;

    private final LockLossListener lossListener;

    private final boolean clustered;

    private final LockTokens tokens = new LockTokens();

    /** Keys this client holds now, for reentrancy. */
    private final Map<String, HeldLock> held = new ConcurrentHashMap<>();

    private final LeaseRenewer renewer;

    /** This client's id in queues and hand-offs. */
    private final String clientId = new LockTokens().next();

    /** Receives hand-offs for waiting threads; {@code null} when waiting polls instead. */
    private final HandoffReceiver handoffs;

    /** Longest a waiter sleeps between attempts without a notification (bounds the cost of a lost one). */
    private volatile long maxUnnotifiedWaitNanos = TimeUnit.SECONDS.toNanos(1);

    /** A client with a 30 s renewed lease and no loss listener. */
    public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix) {
        this(connectionFactory, keyPrefix, Duration.ofSeconds(30), LockLossListener.NONE, null);
    }

    /**
     * @param connectionFactory the application's Redis connection factory (no client of our own is made)
     * @param keyPrefix text put in front of every key, may be empty
     * @param renewedLease the lease of locks kept alive by renewal; they are renewed every third of it
     * @param lossListener told when a held lock is found lost
     * @param renewalScheduler runs the renewals; {@code null} for a daemon thread of the client's own
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix, Duration renewedLease,
            LockLossListener lossListener, ScheduledExecutorService renewalScheduler) {
        this(connectionFactory, keyPrefix, renewedLease, lossListener, renewalScheduler, true);
    }

    /**
     * @param notifiedWaiting wake waiters through Redis pub/sub when a lock is released (one shared subscription
     * connection); {@code false} makes waiters poll with a jittered backoff instead
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix, Duration renewedLease,
            LockLossListener lossListener, ScheduledExecutorService renewalScheduler, boolean notifiedWaiting) {
        this.redis = commandsFor(connectionFactory);
        this.keyPrefix = (keyPrefix != null) ? keyPrefix : "";
        this.renewedLeaseMillis = renewedLease.toMillis();
        this.lossListener = lossListener;
        this.clustered = LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
                && lettuce.isClusterAware();
        this.renewer = new LeaseRenewer(this, this.renewedLeaseMillis, renewalScheduler);
        this.connectionFactory = connectionFactory;
        this.handoffs = notifiedWaiting ? new HandoffReceiver(this::openSubscription, this.renewer.scheduler(),
                this.clientId, this.clustered, this::handOffUnclaimed) : null;
    }

    private static LockCommands commandsFor(RedisConnectionFactory connectionFactory) {
        if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
                && LettuceLockCommands.supports(lettuce)) {
            return LettuceLockCommands.lazy(lettuce);
        }
        return new TemplateLockCommands(connectionFactory);
    }

    /**
     * The Redis key for a lock name: prefix + name, validated.
     * @param key the lock name as the caller gave or resolved it
     * @param source what produced it (an expression, or the name itself), for error messages
     * @throws LockException if the key is empty or too long
     */
    public String redisKey(String key, String source) {
        if (key == null || key.isEmpty()) {
            throw new LockException("Lock key from '" + source + "' is null or empty");
        }
        String full = this.keyPrefix.isEmpty() ? key : this.keyPrefix.concat(key);
        LockKeys.checkLength(full, source);
        return full;
    }

    /**
     * Takes every key with a fixed lease, waiting up to {@code waitNanos} in all.
     * @see #acquire(List, long, long, boolean)
     */
    public LockHandle acquire(List<String> redisKeys, long waitNanos, long leaseMillis) {
        return acquire(redisKeys, waitNanos, leaseMillis, false);
    }

    /**
     * Takes every key, waiting up to {@code waitNanos} in all.
     * @param redisKeys keys from {@link #redisKey}, distinct, in the order to take them
     * @param waitNanos how long to keep trying; 0 means one attempt per key
     * @param leaseMillis the TTL of each key when {@code renew} is false
     * @param renew keep the locks alive until released, with the client's renewed lease
     * @return the handle (a {@link GuardedLock}), or {@code null} when some key stayed taken for the whole wait
     * (nothing is then held)
     * @throws LockException if Redis fails or the thread is interrupted while waiting (nothing is then held)
     */
    public GuardedLock acquire(List<String> redisKeys, long waitNanos, long leaseMillis, boolean renew) {
        long lease = renew ? this.renewedLeaseMillis : leaseMillis;
        String token = this.tokens.next();
        long deadline = System.nanoTime() + waitNanos;
        if (redisKeys.size() == 1) {
            return acquireOne(redisKeys.get(0), token, lease, renew, deadline);
        }
        List<RedisLockHandle> taken = new ArrayList<>(redisKeys.size());
        try {
            for (String key : redisKeys) {
                RedisLockHandle handle = acquireOne(key, token, lease, renew, deadline);
                if (handle == null) {
                    closeAll(taken);
                    return null;
                }
                taken.add(handle);
            }
        }
        catch (RuntimeException ex) {
            closeAll(taken);
            throw ex;
        }
        return new MultiLockHandle(taken);
    }

    private RedisLockHandle acquireOne(String key, String token, long leaseMillis, boolean renew, long deadline) {
        HeldLock mine = this.held.get(key);
        if (mine != null && mine.owner == Thread.currentThread() && mine.enterAgain()) {
            return new RedisLockHandle(this, mine);
        }
        String[] keys = scriptKeys(key);
        boolean mayWait = deadline - System.nanoTime() > 0;
        if (this.handoffs == null) {
            return acquirePolling(keys, token, leaseMillis, renew, deadline);
        }
        long pttl = 0;
        HandoffReceiver.Line line = this.handoffs.waitingLine(key);
        if (line == null) {
            // Nobody here waits for the key: try it.
            long sentAt = System.nanoTime();
            long[] reply = tryAcquire(keys, token, leaseMillis, mayWait);
            if (reply[0] == ACQUIRED) {
                return hold(keys, token + ":" + reply[1], reply[1], leaseMillis, renew, sentAt);
            }
            if (reply[0] == HANDED_OVER && this.handoffs.grant(key, reply[1], true)) {
                RedisLockHandle handle = adoptHandoff(keys, reply[1], leaseMillis, renew, -1, 0);
                if (handle != null) {
                    return handle;
                }
            }
            if (!mayWait || deadline - System.nanoTime() <= 0) {
                return null;
            }
            line = this.handoffs.line(key);
            if (reply[0] == TAKEN) {
                pttl = reply[1];
                line.taken(sentAt, leaseMillis, System.nanoTime() + untilExpiry(pttl));
            }
        }
        else if (!mayWait) {
            // Other threads here already wait for it: the key is taken, and they come first.
            return null;
        }
        HandoffReceiver.Waiter waiter = this.handoffs.join(key);
        line = waiter.line;
        if (waiter.subscribedNow) {
            // A hand-off published before we listened was missed: look in Redis at once.
            line.tryAgainAt(System.nanoTime());
        }
        try {
            while (true) {
                if (waiter.isGranted()) {
                    RedisLockHandle handle = adoptGranted(keys, waiter, leaseMillis, renew);
                    if (handle != null) {
                        return handle;
                    }
                    waiter = this.handoffs.join(key);
                    line = waiter.line;
                    continue;
                }
                long now = System.nanoTime();
                long remaining = deadline - now;
                if (remaining <= 0) {
                    if (waiter.cancel()) {
                        return null;
                    }
                    continue; // a hand-off came first: the lock is ours
                }
                boolean head = line.isHead(waiter);
                long tryIn;
                synchronized (line) {
                    tryIn = line.nextTryAt - now;
                }
                if (head && tryIn <= 0) {
                    long sentAt = now;
                    long[] reply = tryAcquire(keys, token, leaseMillis, true);
                    if (reply[0] == ACQUIRED) {
                        // Leave the line. Should an older hand-off have been granted meanwhile, it is void: the
                        // key now holds our token.
                        waiter.cancel();
                        return hold(keys, token + ":" + reply[1], reply[1], leaseMillis, renew, sentAt);
                    }
                    if (reply[0] == HANDED_OVER) {
                        // Handed to this client, but the message is late or lost: give it to the line's first.
                        if (this.handoffs.grant(key, reply[1], true)) {
                            passOn(key, reply[1]);
                        }
                        line.tryAgainAt(System.nanoTime() + this.maxUnnotifiedWaitNanos);
                    }
                    else {
                        pttl = reply[1];
                        line.taken(sentAt, leaseMillis, System.nanoTime() + untilExpiry(pttl));
                    }
                    continue;
                }
                long park = head ? Math.min(remaining, tryIn) : Math.min(remaining, this.maxUnnotifiedWaitNanos);
                waiter.park(park, key);
            }
        }
        catch (RuntimeException ex) {
            if (!waiter.cancel()) {
                // Interrupted or failed just as a hand-off came: it is ours, so give it back.
                passOn(key, waiter.fence());
            }
            throw ex;
        }
    }

    /** Takes the lock a hand-off gave to the waiter; {@code null} if it was lost before we could use it. */
    private RedisLockHandle adoptGranted(String[] keys, HandoffReceiver.Waiter waiter, long leaseMillis, boolean renew) {
        HandoffReceiver.Line line = waiter.line;
        long queuedLease;
        long takenSentAt;
        synchronized (line) {
            queuedLease = line.queuedLeaseMillis;
            takenSentAt = line.lastTakenSentAt;
            // The lock is in this client now: the next look at Redis is due no sooner than a renewal bound.
            line.nextTryAt = System.nanoTime() + this.maxUnnotifiedWaitNanos;
        }
        return adoptHandoff(keys, waiter.fence(), leaseMillis, renew, queuedLease, takenSentAt);
    }

    /**
     * Takes a lock handed to this client. The release set the lease this client's queue entry asked for,
     * starting after {@code takenSentAt}; a different lease, or an unknown start, is set again now.
     */
    private RedisLockHandle adoptHandoff(String[] keys, long fence, long leaseMillis, boolean renew,
            long queuedLease, long takenSentAt) {
        String key = keys[0];
        String value = this.clientId + ":" + fence;
        long sentAt = takenSentAt;
        if (queuedLease != leaseMillis || takenSentAt == 0) {
            sentAt = System.nanoTime();
            List<?> extended;
            try {
                extended = this.redis.renew(List.of(key), new Object[] { Long.toString(leaseMillis), value });
            }
            catch (RuntimeException ex) {
                passOn(key, fence);
                throw new LockException("Redis failed while acquiring lock '" + key + "': " + ex.getMessage(), ex);
            }
            if (extended == null || ((Number) extended.get(0)).longValue() != 1L) {
                return null; // expired before we got to it
            }
        }
        return hold(keys, value, fence, leaseMillis, renew, sentAt);
    }

    private RedisLockHandle hold(String[] keys, String value, long fence, long leaseMillis, boolean renew,
            long sentAt) {
        HeldLock lock = new HeldLock(keys, value, fence, leaseMillis, renew, sentAt);
        this.held.put(lock.key, lock);
        if (renew) {
            this.renewer.register(lock);
        }
        return new RedisLockHandle(this, lock);
    }

    /** The keys the acquire and release scripts touch: the lock key, its queue and the queue's entries. */
    private static String[] scriptKeys(String key) {
        return new String[] { key, KeySlots.queueKey(key), KeySlots.queueEntriesKey(key) };
    }

    /** Waiting without notifications: attempts spaced by a jittered backoff. */
    private RedisLockHandle acquirePolling(String[] keys, String token, long leaseMillis, boolean renew,
            long deadline) {
        int attempt = 0;
        while (true) {
            long sentAt = System.nanoTime();
            long[] reply = tryAcquire(keys, token, leaseMillis, false);
            if (reply[0] == ACQUIRED) {
                return hold(keys, token + ":" + reply[1], reply[1], leaseMillis, renew, sentAt);
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            pause(keys[0], Backoff.pauseNanos(attempt++, remaining));
        }
    }

    /**
     * A hand-off to this client that no thread takes (its waiters gave up): release it at once, which hands
     * it to the next client in the queue. Never on the I/O thread that delivered the message.
     */
    private void handOffUnclaimed(String key, long fence) {
        this.renewer.scheduler().execute(() -> passOn(key, fence));
    }

    private void passOn(String key, long fence) {
        HeldLock mine = this.held.get(key);
        if (mine != null && mine.fence >= fence) {
            return; // already taken by a thread here
        }
        try {
            this.redis.release(scriptKeys(key), releaseArgs(key, this.clientId + ":" + fence));
        }
        catch (RuntimeException ex) {
            logger.warn("Could not pass on lock '" + key + "' handed to this client after its waiters left; it "
                    + "expires when its lease ends", ex);
        }
    }

    /**
     * unlock.lua's arguments: the value, then what a hand-off needs where the script's defaults (standalone
     * channel names, plain PUBLISH) do not fit, then this client's id if it leaves the key's queue. The common
     * case, a standalone server and nobody here waiting, sends the value alone.
     */
    private String[] releaseArgs(String key, String value) {
        boolean leaving = this.handoffs != null && this.handoffs.leaving(key);
        if (!leaving && !this.clustered) {
            return new String[] { value };
        }
        return leaving ? new String[] { value, channelPrefix(key), publishCommand(), this.clientId }
                : new String[] { value, channelPrefix(key), publishCommand() };
    }

    private String channelPrefix(String key) {
        return KeySlots.handoffChannelPrefix(key, this.clustered);
    }

    private String publishCommand() {
        return shardedPubSub() ? "SPUBLISH" : "PUBLISH";
    }

    /**
     * Whether hand-off messages go by sharded pub/sub: in a cluster of Redis 7 or later, on Lettuce (Spring
     * Data Redis has no sharded subscriptions, so other client libraries subscribe the plain way). Decided
     * once, on first need, by asking the servers for their version.
     */
    private boolean shardedPubSub() {
        Boolean sharded = this.sharded;
        if (sharded == null) {
            sharded = this.clustered && RedisVersion.atLeast(this.redis.serverVersion(), 7, 0);
            this.sharded = sharded;
        }
        return sharded;
    }

    private HandoffSubscription openSubscription(java.util.function.Consumer<byte[]> listener) {
        if (shardedPubSub()) {
            return new ShardedHandoffSubscription((io.lettuce.core.cluster.RedisClusterClient)
                    ((LettuceConnectionFactory) this.connectionFactory).getRequiredNativeClient(), listener,
                    this.renewer.scheduler());
        }
        return new PlainHandoffSubscription(this.connectionFactory, listener);
    }

    /**
     * How long to wait for a hand-off before looking at Redis anyway: until the holder's lease runs out (an
     * expiry hands nothing on), with jitter so clients do not all look at the same instant, and never longer
     * than the retry bound, in case a message was lost and to keep this client's queue entry fresh.
     */
    private long untilExpiry(long pttlMillis) {
        long ttl = (pttlMillis > 0) ? TimeUnit.MILLISECONDS.toNanos(pttlMillis) : 0;
        long jitter = java.util.concurrent.ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2) + 1);
        return Math.min(ttl + jitter, this.maxUnnotifiedWaitNanos);
    }

    /** This client's id in queues and hand-offs. */
    String clientId() {
        return this.clientId;
    }

    /** Tests: how long a waiter may go without a hand-off before looking at Redis anyway. */
    void maxUnnotifiedWait(Duration wait) {
        this.maxUnnotifiedWaitNanos = wait.toNanos();
    }

    /**
     * One run of acquire.lua: {ACQUIRED, fence}, {HANDED_OVER, fence} or {TAKEN, pttl}.
     * @param queue whether a taken key puts this client in its queue
     */
    long[] tryAcquire(String[] keys, String token, long leaseMillis, boolean queue) {
        List<?> reply;
        String[] args;
        if (queue) {
            // A queue entry outlives three missed refreshes.
            long entryMillis = Math.max(1000, 3 * TimeUnit.NANOSECONDS.toMillis(this.maxUnnotifiedWaitNanos));
            args = new String[] { token, Long.toString(leaseMillis), this.clientId, Long.toString(entryMillis) };
        }
        else {
            args = new String[] { token, Long.toString(leaseMillis) };
        }
        try {
            reply = this.redis.acquire(keys, args);
        }
        catch (RuntimeException ex) {
            throw new LockException("Redis failed while acquiring lock '" + keys[0] + "': " + ex.getMessage(), ex);
        }
        if (reply == null || reply.size() != 2) {
            throw new LockException("Unexpected reply while acquiring lock '" + keys[0] + "': " + reply);
        }
        return new long[] { ((Number) reply.get(0)).longValue(), ((Number) reply.get(1)).longValue() };
    }

    private static void pause(String key, long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while waiting for lock '" + key + "'", ex);
        }
    }

    /** Ends one (possibly nested) acquisition; the last one releases the key. */
    void exit(HeldLock lock) {
        if (!lock.exitOne()) {
            return;
        }
        this.held.remove(lock.key, lock);
        this.renewer.unregister(lock);
        if (!lock.markReleased()) {
            return; // already found lost (and signalled); the key is not ours to delete
        }
        Long deleted;
        try {
            deleted = this.redis.release(lock.scriptKeys, releaseArgs(lock.key, lock.token));
        }
        catch (RuntimeException ex) {
            throw new LockException("Redis failed while releasing lock '" + lock.key
                    + "'; it expires when its lease ends: " + ex.getMessage(), ex);
        }
        if (deleted == null || deleted != 1L) {
            lock.lostBeforeRelease();
            signal(lock, LockLossDetection.RELEASE);
        }
    }

    /** Renews a batch in one round trip per slot group; marks keys that are no longer ours as lost. */
    void renew(List<HeldLock> batch) {
        for (List<HeldLock> group : groupBySlot(batch)) {
            List<String> keys = new ArrayList<>(group.size());
            Object[] args = new Object[group.size() + 1];
            args[0] = Long.toString(this.renewedLeaseMillis);
            for (int i = 0; i < group.size(); i++) {
                keys.add(group.get(i).key);
                args[i + 1] = group.get(i).token;
            }
            long sentAt = System.nanoTime();
            List<?> extended = this.redis.renew(keys, args);
            for (int i = 0; i < group.size(); i++) {
                HeldLock lock = group.get(i);
                if (extended != null && ((Number) extended.get(i)).longValue() == 1L) {
                    lock.extended(sentAt);
                }
                else if (lock.markLost()) {
                    // markLost fails for a lock whose release has begun: its key is gone because we deleted it.
                    this.renewer.unregister(lock);
                    signal(lock, LockLossDetection.RENEWAL);
                }
            }
        }
    }

    private List<List<HeldLock>> groupBySlot(List<HeldLock> batch) {
        if (!this.clustered) {
            return List.of(batch);
        }
        Map<Integer, List<HeldLock>> groups = new LinkedHashMap<>();
        for (HeldLock lock : batch) {
            groups.computeIfAbsent(KeySlots.slot(lock.key), (slot) -> new ArrayList<>()).add(lock);
        }
        return new ArrayList<>(groups.values());
    }

    /** Asks Redis whether the key still holds our token; marks the lock lost if not. */
    boolean verify(HeldLock lock) {
        if (lock.isLost()) {
            return false;
        }
        String current;
        try {
            current = this.redis.get(lock.key);
        }
        catch (RuntimeException ex) {
            throw new LockException("Redis failed while checking lock '" + lock.key + "': " + ex.getMessage(), ex);
        }
        if (lock.token.equals(current)) {
            return true;
        }
        if (lock.markLost()) {
            this.renewer.unregister(lock);
            signal(lock, LockLossDetection.COMMIT_CHECK);
        }
        return false;
    }

    private void signal(HeldLock lock, LockLossDetection detection) {
        if (logger.isWarnEnabled()) {
            logger.warn("Lock '" + lock.key + "' (fencing token " + lock.fence + ") was lost, detected at "
                    + detection.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                    + ": its lease ran out or the key was removed, so another holder may have run the same "
                    + "critical section. " + ((detection == LockLossDetection.RELEASE && !lock.renewed)
                            ? "The work took longer than the fixed lease of " + lock.leaseMillis + " ms."
                            : ""));
        }
        try {
            this.lossListener.lockLost(lock.key, lock.token, lock.fence, detection);
        }
        catch (RuntimeException ex) {
            logger.warn("Lock loss listener failed for '" + lock.key + "'", ex);
        }
    }

    private static void closeAll(List<RedisLockHandle> taken) {
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).close();
            }
            catch (LockException ex) {
                logger.warn("Could not release lock '" + taken.get(i).key() + "' after a failed multi-key "
                        + "acquisition; it expires with its lease", ex);
            }
        }
    }

    /** How often renewed locks are renewed. */
    public Duration renewalPeriod() {
        return Duration.ofMillis(this.renewer.periodMillis());
    }

    /** Runs one renewal round now (tests, and callers that know a long pause just ended). */
    public void renewNow() {
        this.renewer.tick();
    }

    /** Stops renewing; held locks then expire with their lease. */
    @Override
    public void close() {
        this.renewer.close();
        if (this.handoffs != null) {
            this.handoffs.close();
        }
    }
}
