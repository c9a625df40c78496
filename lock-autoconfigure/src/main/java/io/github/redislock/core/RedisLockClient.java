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

    private final LockCommands redis;

    private final String keyPrefix;

    private final long renewedLeaseMillis;

    private final LockLossListener lossListener;

    private final boolean clustered;

    private final LockTokens tokens = new LockTokens();

    /** Keys this client holds now, for reentrancy. */
    private final Map<String, HeldLock> held = new ConcurrentHashMap<>();

    private final LeaseRenewer renewer;

    /** Wakes waiters on release; {@code null} when waiting polls instead. */
    private final ReleaseNotifier notifier;

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
        this.notifier = notifiedWaiting ? new ReleaseNotifier(connectionFactory, this.renewer.scheduler()) : null;
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
        String fenceKey = KeySlots.fenceKey(key);
        int attempt = 0;
        ReleaseNotifier.Waiter waiter = null;
        try {
            while (true) {
                long sentAt = System.nanoTime();
                long[] reply = tryAcquire(key, fenceKey, token, leaseMillis);
                if (reply[0] == 1L) {
                    HeldLock lock = new HeldLock(key, token, reply[1], leaseMillis, renew, sentAt);
                    this.held.put(key, lock);
                    if (renew) {
                        this.renewer.register(lock);
                    }
                    return new RedisLockHandle(this, lock);
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return null;
                }
                if (this.notifier == null) {
                    pause(key, Backoff.pauseNanos(attempt++, remaining));
                }
                else if (waiter == null) {
                    // Subscribe, then try again at once: a release between the failed attempt and the
                    // subscription published before we listened.
                    waiter = this.notifier.register(key);
                }
                else {
                    waiter.await(Math.min(remaining, untilExpiry(reply[1])), key);
                }
            }
        }
        finally {
            if (waiter != null) {
                this.notifier.unregister(waiter);
            }
        }
    }

    /**
     * How long to wait for a notification before trying anyway: until the holder's lease runs out (an expiry
     * publishes nothing), with jitter so waiters of several clients do not all retry at the same instant,
     * and never longer than a second, in case a notification was lost.
     */
    private long untilExpiry(long pttlMillis) {
        long ttl = (pttlMillis > 0) ? TimeUnit.MILLISECONDS.toNanos(pttlMillis) : 0;
        long jitter = java.util.concurrent.ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(2) + 1);
        return Math.min(ttl + jitter, this.maxUnnotifiedWaitNanos);
    }

    /** Tests: how long a waiter may sleep without a notification before trying again anyway. */
    void maxUnnotifiedWait(Duration wait) {
        this.maxUnnotifiedWaitNanos = wait.toNanos();
    }

    /** One run of acquire.lua: {1, fence} when ours, {0, pttl} when someone else holds the key. */
    long[] tryAcquire(String key, String fenceKey, String token, long leaseMillis) {
        List<?> reply;
        try {
            reply = this.redis.acquire(key, fenceKey, token, Long.toString(leaseMillis));
        }
        catch (RuntimeException ex) {
            throw new LockException("Redis failed while acquiring lock '" + key + "': " + ex.getMessage(), ex);
        }
        if (reply == null || reply.size() != 2) {
            throw new LockException("Unexpected reply while acquiring lock '" + key + "': " + reply);
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
            deleted = this.redis.release(lock.key, lock.token, KeySlots.releaseChannel(lock.key));
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
        if (this.notifier != null) {
            this.notifier.close();
        }
    }
}
