package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.redislock.redis.LettuceCalls.bytes;

/**
 * Lock commands straight on the Lettuce connection that Spring Boot's {@link LettuceConnectionFactory} shares
 * across the application (no connection or client of our own). Every locked call pays for these, so they
 * skip the template's per-call connection wrapper, serializers and result converters. How a call is made
 * (EVALSHA with an EVAL fallback, the command timeout, failures translated) is {@link LettuceCalls}'s; the
 * connection is looked up on first use by {@link LazyLockCommands}.
 */
final class LettuceLockCommands implements LockCommands {

    private static final LettuceCalls.Script ACQUIRE = new LettuceCalls.Script("acquire.lua");

    private static final LettuceCalls.Script RENEW = new LettuceCalls.Script("renew.lua");

    private static final LettuceCalls.Script UNLOCK = new LettuceCalls.Script("unlock.lua");

    private static final LettuceCalls.Script SHARE = new LettuceCalls.Script("share.lua");

    private static final LettuceCalls.Script RENEW_SHARES = new LettuceCalls.Script("share-renew.lua");

    private static final Log logger = LogFactory.getLog(LettuceLockCommands.class);

    private final LettuceCalls calls;

    private LettuceLockCommands(RedisClusterAsyncCommands<byte[], byte[]> commands, Duration timeout) {
        this.calls = new LettuceCalls(commands, timeout);
    }

    /** Whether the fast path applies: Lettuce, standalone, with a shared native connection (Boot's default). */
    static boolean supports(LettuceConnectionFactory factory) {
        return !factory.isClusterAware() && factory.getShareNativeConnection();
    }

    /** Commands on the factory's shared connection, looked up on first use (see {@link LazyLockCommands}). */
    static LockCommands lazy(LettuceConnectionFactory factory) {
        return new LazyLockCommands(factory);
    }

    /** Commands on the factory's shared connection now; the template's if it is not a Lettuce one after all. */
    @SuppressWarnings("unchecked")
    static LockCommands sharedConnectionOf(LettuceConnectionFactory factory) {
        // With a shared native connection, the wrapper is only a handle on it: closing it (or not) never
        // closes the shared connection, which Lettuce reconnects by itself.
        RedisConnection connection = factory.getConnection();
        Object nativeConnection = connection.getNativeConnection();
        if (!(nativeConnection instanceof RedisClusterAsyncCommands<?, ?>)) {
            connection.close();
            return new TemplateLockCommands(factory);
        }
        return new LettuceLockCommands((RedisClusterAsyncCommands<byte[], byte[]>) nativeConnection,
                factory.getClientConfiguration().getCommandTimeout());
    }

    @Override
    public List<?> acquire(LockKey key, boolean mayQueue, String[] args) {
        // An attempt that may not queue sends the lock key alone: the same array, its first key.
        return this.calls.script(ACQUIRE, ScriptOutputType.MULTI, key.scriptKeys(), mayQueue ? 3 : 1, args);
    }

    @Override
    public Long release(LockKey key, String[] args) {
        return this.calls.script(UNLOCK, ScriptOutputType.INTEGER, key.scriptKeys(), 3, args);
    }

    @Override
    public List<?> renew(String[] keys, String[] args) {
        return this.calls.script(RENEW, ScriptOutputType.MULTI, keys, keys.length, args);
    }

    @Override
    public List<?> share(String[] keys, String[] args) {
        return this.calls.script(SHARE, ScriptOutputType.MULTI, keys, keys.length, args);
    }

    @Override
    public List<?> renewShares(String[] keys, String[] args) {
        return this.calls.script(RENEW_SHARES, ScriptOutputType.MULTI, keys, keys.length, args);
    }

    @Override
    public CompletionStage<List<?>> renewAsync(String[] keys, String[] args) {
        return this.calls.scriptAsync(RENEW, ScriptOutputType.MULTI, keys, args);
    }

    @Override
    public long renewAndWait(boolean share, String[] keys, String[] args, int replicas, long timeoutMillis) {
        List<?> renewed = this.calls.script(share ? RENEW_SHARES : RENEW, ScriptOutputType.MULTI, keys, keys.length,
                args);
        if (((Number) renewed.get(0)).longValue() != 1L) {
            return -1;
        }
        // The shared connection: WAIT counts up to its latest write, which is the renewal or one after it.
        RedisFuture<Long> acknowledged = this.calls.commands().waitForReplication(replicas, timeoutMillis);
        long timeoutNanos = this.calls.timeoutNanos();
        try {
            // WAIT itself blocks up to its timeout: the command timeout counts from then on.
            long bound = TimeUnit.MILLISECONDS.toNanos(timeoutMillis) + timeoutNanos;
            return (timeoutNanos > 0) ? acknowledged.get(bound, TimeUnit.NANOSECONDS) : acknowledged.get();
        }
        catch (TimeoutException ex) {
            acknowledged.cancel(true);
            throw new RedisCommandTimeoutException("WAIT timed out after " + timeoutMillis + " ms");
        }
        catch (ExecutionException ex) {
            throw LettuceCalls.translate(
                    (ex.getCause() instanceof RuntimeException runtime) ? runtime : new RedisException(ex));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RedisException("Interrupted while waiting for replicas", ex);
        }
    }

    @Override
    public boolean keepsOrder() {
        return true;
    }

    @Override
    public void releaseBehind(LockKey key, String[] args) {
        // EVAL, not EVALSHA: there is no second chance to fall back on a server that lost its script cache.
        this.calls.<Long>evalWithoutWaiting(UNLOCK, ScriptOutputType.INTEGER, key.scriptKeys(), args)
            .whenComplete((released, ex) -> {
                if (ex != null && logger.isDebugEnabled()) {
                    logger.debug("Could not undo an abandoned lock attempt", ex);
                }
            });
    }

    @Override
    public @Nullable String get(String key) {
        byte[] value = this.calls.call((commands) -> commands.get(bytes(key)));
        return (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
    }

    @Override
    public String serverVersion() {
        return versionIn(this.calls.call((commands) -> commands.info("server")));
    }

    /** The {@code redis_version} field of an {@code INFO server} reply. */
    static String versionIn(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                return line.substring("redis_version:".length()).trim();
            }
        }
        return "";
    }
}
