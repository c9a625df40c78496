package io.github.redislock.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;
import io.github.redislock.LockHandle;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The lock engine: takes and releases locks in Redis. It knows keys, tokens and leases, and nothing of
 * annotations or expressions; {@code DistributedLockTemplate} and the {@code @DistributedLock} aspect are
 * thin front ends over it. Internal API: its signature may change between minor versions.
 * <p>
 * Protocol, for one key:
 * <ul>
 * <li>acquire: {@code SET key token NX PX lease}, one round trip; the token is fresh and random per
 * acquisition;</li>
 * <li>wait: repeat the acquire with a jittered exponential pause until the wait time runs out;</li>
 * <li>release: {@code unlock.lua} (compare-and-delete) through EVALSHA, falling back to EVAL when the
 * server's script cache is empty (after a restart). A key that no longer holds our token is never
 * deleted.</li>
 * </ul>
 * Several keys are taken one after another in the caller's (canonical) order under one token and one
 * shared deadline, all or nothing.
 * <p>
 * Redis errors (refused connection, command timeout, error reply) surface as {@link LockException} naming
 * the key, with the client's exception as cause. How long a command may take is the connection's command
 * timeout ({@code spring.data.redis.timeout}).
 */
public final class RedisLockClient {

    private static final Log logger = LogFactory.getLog(RedisLockClient.class);

    private static final RedisScript<Long> UNLOCK_SCRIPT = LockScripts.load("unlock.lua", Long.class);

    private final StringRedisTemplate redis;

    private final String keyPrefix;

    private final LockTokens tokens = new LockTokens();

    /**
     * @param connectionFactory the application's Redis connection factory (no client of our own is made)
     * @param keyPrefix text put in front of every key, may be empty
     */
    public RedisLockClient(RedisConnectionFactory connectionFactory, String keyPrefix) {
        this.redis = new StringRedisTemplate(connectionFactory);
        this.keyPrefix = (keyPrefix != null) ? keyPrefix : "";
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
        LockKeys.validate(full, source);
        return full;
    }

    /**
     * Takes every key, waiting up to {@code waitNanos} in all.
     * @param redisKeys keys from {@link #redisKey}, distinct, in the order to take them
     * @param waitNanos how long to keep trying; 0 means one attempt per key
     * @param leaseMillis the TTL of each key
     * @return the handle, or {@code null} when some key stayed taken for the whole wait (nothing is then held)
     * @throws LockException if Redis fails or the thread is interrupted while waiting (nothing is then held)
     */
    public LockHandle acquire(List<String> redisKeys, long waitNanos, long leaseMillis) {
        String token = this.tokens.next();
        long deadline = System.nanoTime() + waitNanos;
        if (redisKeys.size() == 1) {
            return acquireOne(redisKeys.get(0), token, leaseMillis, deadline);
        }
        List<RedisLockHandle> held = new ArrayList<>(redisKeys.size());
        try {
            for (String key : redisKeys) {
                RedisLockHandle handle = acquireOne(key, token, leaseMillis, deadline);
                if (handle == null) {
                    releaseAll(held);
                    return null;
                }
                held.add(handle);
            }
        }
        catch (RuntimeException ex) {
            releaseAll(held);
            throw ex;
        }
        return new MultiLockHandle(held);
    }

    private RedisLockHandle acquireOne(String key, String token, long leaseMillis, long deadline) {
        int attempt = 0;
        while (true) {
            long sentAt = System.nanoTime();
            if (trySet(key, token, leaseMillis)) {
                // The TTL starts when Redis runs SET, which is after sentAt: measuring from sentAt errs on
                // the safe side.
                return new RedisLockHandle(this, key, token, sentAt + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return null;
            }
            pause(key, Backoff.pauseNanos(attempt++, remaining));
        }
    }

    private boolean trySet(String key, String token, long leaseMillis) {
        try {
            return Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(key, token, leaseMillis, TimeUnit.MILLISECONDS));
        }
        catch (DataAccessException ex) {
            throw new LockException("Redis failed while acquiring lock '" + key + "': " + ex.getMessage(), ex);
        }
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

    /**
     * Compare-and-delete. Returns whether the key still held the token (and is now deleted).
     * @throws LockException if Redis fails
     */
    boolean release(String key, String token) {
        Long deleted;
        try {
            deleted = this.redis.execute(UNLOCK_SCRIPT, Collections.singletonList(key), token);
        }
        catch (DataAccessException ex) {
            throw new LockException("Redis failed while releasing lock '" + key
                    + "'; it expires when its lease ends: " + ex.getMessage(), ex);
        }
        boolean released = deleted != null && deleted == 1L;
        if (!released && logger.isWarnEnabled()) {
            logger.warn("Lock '" + key + "' was no longer held at release: its lease ran out before the work "
                    + "finished (and another holder may have taken it). Nothing was deleted; consider a longer lease.");
        }
        return released;
    }

    private static void releaseAll(List<RedisLockHandle> held) {
        for (int i = held.size() - 1; i >= 0; i--) {
            try {
                held.get(i).close();
            }
            catch (LockException ex) {
                logger.warn("Could not release lock '" + held.get(i).key() + "' after a failed multi-key acquisition; "
                        + "it expires with its lease", ex);
            }
        }
    }
}
