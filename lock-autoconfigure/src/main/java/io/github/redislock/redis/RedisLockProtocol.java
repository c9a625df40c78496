package io.github.redislock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.LockException;
import io.github.redislock.engine.Sharing;
import io.github.redislock.redis.support.LockValue;

/**
 * {@link LockProtocol} on one Redis, standalone or cluster: the Java side of {@code acquire.lua},
 * {@code unlock.lua} and {@code renew.lua} (their arguments and replies), and the one place where a Redis
 * failure becomes a {@link LockException}.
 */
final class RedisLockProtocol implements LockProtocol {

    private static final Log logger = LogFactory.getLog(RedisLockProtocol.class);

    private static final long ACQUIRED = 1;

    private static final long HANDED_OVER = 2;

    /** acquire.lua: the key is a semaphore's. */
    private static final long SEMAPHORE = 3;

    /** unlock.lua: handed on, but the message was refused. */
    private static final long HANDED_OVER_UNANNOUNCED = 2;

    /** When an abandoned attempt is released once more, on transports that do not keep order. */
    private static final long ABANDON_AGAIN_MILLIS = 1000;

    private final LockCommands redis;

    private final HandoffChannel channel;

    private final ScheduledExecutorService scheduler;

    private volatile boolean warnedUnannounced;

    /** The last lease sent and its text: nearly every acquisition asks for the same one. */
    private volatile LeaseText lastLease = new LeaseText(-1, "-1");

    RedisLockProtocol(LockCommands redis, HandoffChannel channel, ScheduledExecutorService scheduler) {
        this.redis = redis;
        this.channel = channel;
        this.scheduler = scheduler;
    }

    @Override
    public Attempt acquire(LockKey key, String token, long leaseMillis, @Nullable String clientId,
            long queueEntryMillis) {
        long sentAt = System.nanoTime();
        List<?> reply;
        try {
            // The channel's address may need the server's version first (sharded or not): inside the try.
            String[] args = (clientId != null)
                    ? new String[] { token, leaseText(leaseMillis), clientId, Long.toString(queueEntryMillis),
                            this.channel.address(key.name) }
                    : new String[] { token, leaseText(leaseMillis) };
            reply = this.redis.acquire(key, clientId != null, args);
        }
        catch (RuntimeException ex) {
            // The script may still run (a stalled server, a reconnect replaying it): undo it.
            abandon(key, token);
            throw failure("acquiring", key.name, ex);
        }
        if (reply == null || reply.size() < 2) {
            throw new LockException("Unexpected reply while acquiring lock '" + key + "': " + reply);
        }
        long status = ((Number) reply.get(0)).longValue();
        long value = ((Number) reply.get(1)).longValue();
        if (status == SEMAPHORE) {
            throw Sharing.EXCLUSIVE.mismatch(key.name, Sharing.permits((int) Math.min(value, Integer.MAX_VALUE)));
        }
        return (status == ACQUIRED || status == HANDED_OVER) ? Attempt.acquired(value, status == HANDED_OVER, sentAt)
                : Attempt.taken(value, sentAt);
    }

    private String leaseText(long leaseMillis) {
        LeaseText last = this.lastLease;
        if (last.millis != leaseMillis) {
            last = new LeaseText(leaseMillis, Long.toString(leaseMillis));
            this.lastLease = last;
        }
        return last.text;
    }

    private record LeaseText(long millis, String text) {
    }

    @Override
    public boolean release(LockKey key, String value, @Nullable String leavingClientId, long lastFence,
            long keepMillis) {
        Long released;
        try {
            released = this.redis.release(key, (keepMillis > 0) ? keepArgs(value, leavingClientId, lastFence, keepMillis)
                    : releaseArgs(value, leavingClientId, lastFence));
        }
        catch (RuntimeException ex) {
            throw failure("releasing", key.name, ex);
        }
        if (released != null && released == HANDED_OVER_UNANNOUNCED) {
            unannounced(key);
            return true;
        }
        return released != null && released == 1L;
    }

    /**
     * A hand-off Redis made but whose message it refused: the lock went on all the same, and the waiter finds
     * it at its next look at Redis (within a second). Said once at WARN, since it costs every waiter that
     * second; after that at DEBUG.
     */
    private void unannounced(LockKey key) {
        String message = "Lock '" + key + "' was handed to the next waiting application, but Redis refused the "
                + "hand-off message (the Redis user may publish on no channels, the Redis 7 ACL default); waiters "
                + "then take up to a second to notice. Grant the user the channels "
                + this.channel.aclPattern();
        if (!this.warnedUnannounced) {
            this.warnedUnannounced = true;
            logger.warn(message);
        }
        else if (logger.isDebugEnabled()) {
            logger.debug(message);
        }
    }

    @Override
    public @Nullable CompletionStage<Boolean> extendWithoutWaiting(HeldLock lock, long leaseMillis) {
        CompletionStage<List<?>> reply;
        try {
            reply = this.redis.renewAsync(new String[] { lock.key.name },
                    new String[] { leaseText(leaseMillis), lock.value });
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(failure("extending", lock.key.name, ex));
        }
        return (reply != null) ? reply.thenApply((extended) -> ((Number) extended.get(0)).longValue() == 1L) : null;
    }

    @Override
    public boolean[] renew(List<HeldLock> locks, long leaseMillis) {
        String[] keys = new String[locks.size()];
        String[] args = new String[locks.size() + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = locks.get(i).key.name;
            args[i + 1] = locks.get(i).value;
        }
        List<?> reply;
        try {
            reply = this.redis.renew(keys, args);
        }
        catch (RuntimeException ex) {
            throw failure("renewing", keys[0], ex);
        }
        boolean[] extended = new boolean[keys.length];
        for (int i = 0; i < extended.length; i++) {
            extended[i] = reply != null && ((Number) reply.get(i)).longValue() == 1L;
        }
        return extended;
    }

    @Override
    public @Nullable String read(String key) {
        try {
            return this.redis.get(key);
        }
        catch (RuntimeException ex) {
            throw failure("checking", key, ex);
        }
    }

    @Override
    public void abandon(LockKey key, String token) {
        String[] args = releaseArgs(LockValue.anyFenceOf(token), null, NO_FENCE);
        if (this.redis.keepsOrder()) {
            // Redis runs one connection's commands in order: this release runs after the attempt, if that ever runs.
            this.redis.releaseBehind(key, args);
            return;
        }
        // A pooled connection per command: the attempt may still be on its way over another connection. Release
        // now, and once more when it has surely run or been dropped with its connection.
        Runnable release = () -> {
            try {
                this.redis.release(key, args);
            }
            catch (RuntimeException ex) {
                logger.debug("Could not undo an abandoned attempt on lock '" + key + "'", ex);
            }
        };
        try {
            this.scheduler.execute(release);
            this.scheduler.schedule(release, ABANDON_AGAIN_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (RuntimeException ex) {
            logger.debug("Could not schedule the undo of an abandoned attempt on lock '" + key + "'", ex);
        }
    }

    /**
     * unlock.lua's arguments: the value, the leaving client's id, the last fencing token used. Where to send a
     * hand-off is in the queue entry of the application it goes to, so the common release sends the value
     * alone.
     */
    private static String[] releaseArgs(String value, @Nullable String leavingClientId, long lastFence) {
        if (lastFence != NO_FENCE) {
            return new String[] { value, (leavingClientId != null) ? leavingClientId : "", Long.toString(lastFence) };
        }
        return (leavingClientId != null) ? new String[] { value, leavingClientId } : new String[] { value };
    }

    /** unlock.lua's arguments for a release that keeps the key for {@code keepMillis} more (holdAtLeast). */
    private static String[] keepArgs(String value, @Nullable String leavingClientId, long lastFence, long keepMillis) {
        return new String[] { value, (leavingClientId != null) ? leavingClientId : "",
                (lastFence != NO_FENCE) ? Long.toString(lastFence) : "", Long.toString(keepMillis) };
    }

    private static LockException failure(String action, String key, RuntimeException ex) {
        String consequence = action.equals("releasing") ? "; it expires when its lease ends" : "";
        return new LockException("Redis failed while " + action + " lock '" + key + "'" + consequence + ": "
                + ex.getMessage(), ex);
    }
}
