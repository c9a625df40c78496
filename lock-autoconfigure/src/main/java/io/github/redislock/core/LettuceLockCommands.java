package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.convert.converter.Converter;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Lock commands straight on the Lettuce connection that Spring Boot's {@link LettuceConnectionFactory} shares
 * across the application (no connection or client of our own). Every locked call pays for these, so they
 * skip the template's per-call connection wrapper, serializers and result converters. Scripts go by
 * EVALSHA, falling back to EVAL once when the server has no copy; every wait is bounded by the factory's
 * command timeout.
 */
final class LettuceLockCommands implements LockCommands {

    private static final Script ACQUIRE = new Script("acquire.lua");

    private static final Script RENEW = new Script("renew.lua");

    private static final Script UNLOCK = new Script("unlock.lua");

    private static final Log logger = LogFactory.getLog(LettuceLockCommands.class);

    /** As a Converter: its one method that Spring Data Redis 3.5 and 4.x both have. */
    private static final Converter<Exception, DataAccessException> EXCEPTIONS = new LettuceExceptionConverter();

    private final RedisClusterAsyncCommands<byte[], byte[]> commands;

    /** The factory's command timeout; 0 or less: none. */
    private final long timeoutNanos;

    private LettuceLockCommands(RedisClusterAsyncCommands<byte[], byte[]> commands, Duration timeout) {
        this.commands = commands;
        this.timeoutNanos = timeout.toNanos();
    }

    /** Whether the fast path applies: Lettuce, standalone, with a shared native connection (Boot's default). */
    static boolean supports(LettuceConnectionFactory factory) {
        return !factory.isClusterAware() && factory.getShareNativeConnection();
    }

    /**
     * Commands on the factory's shared connection, looked up on first use rather than at start-up, so that an
     * application starts while Redis is down (its lock calls then fail, as they should) as it would without us.
     */
    static LockCommands lazy(LettuceConnectionFactory factory) {
        return new LazyCommands(factory);
    }

    @SuppressWarnings("unchecked")
    private static LockCommands sharedConnectionOf(LettuceConnectionFactory factory) {
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
        return run(ACQUIRE, ScriptOutputType.MULTI, mayQueue ? key.scriptKeyBytes() : key.lockKeyBytes(),
                bytes(args));
    }

    @Override
    public Long release(LockKey key, String[] args) {
        return run(UNLOCK, ScriptOutputType.INTEGER, key.scriptKeyBytes(), bytes(args));
    }

    @Override
    public List<?> renew(String[] keys, String[] args) {
        return run(RENEW, ScriptOutputType.MULTI, bytes(keys), bytes(args));
    }

    @Override
    public CompletionStage<List<?>> renewAsync(String[] keys, String[] args) {
        byte[][] keyBytes = bytes(keys);
        byte[][] argBytes = bytes(args);
        return this.commands.<List<?>>evalsha(RENEW.sha, ScriptOutputType.MULTI, keyBytes, argBytes)
            .toCompletableFuture()
            .exceptionallyCompose((ex) -> {
                Throwable cause = (ex instanceof CompletionException) ? ex.getCause() : ex;
                if (cause instanceof RedisNoScriptException) {
                    return this.commands.<List<?>>eval(RENEW.body, ScriptOutputType.MULTI, keyBytes, argBytes)
                        .toCompletableFuture();
                }
                return CompletableFuture.failedFuture((cause instanceof RuntimeException runtime)
                        ? translate(runtime) : cause);
            });
    }

    @Override
    public long renewAndWait(String key, String[] args, int replicas, long timeoutMillis) {
        List<?> renewed = run(RENEW, ScriptOutputType.MULTI, new byte[][] { bytes(key) }, bytes(args));
        if (((Number) renewed.get(0)).longValue() != 1L) {
            return -1;
        }
        // The shared connection: WAIT counts up to its latest write, which is the renewal or one after it.
        RedisFuture<Long> acknowledged = this.commands.waitForReplication(replicas, timeoutMillis);
        try {
            // WAIT itself blocks up to its timeout: the command timeout counts from then on.
            long bound = TimeUnit.MILLISECONDS.toNanos(timeoutMillis) + this.timeoutNanos;
            return (this.timeoutNanos > 0) ? acknowledged.get(bound, TimeUnit.NANOSECONDS) : acknowledged.get();
        }
        catch (TimeoutException ex) {
            acknowledged.cancel(true);
            throw new RedisCommandTimeoutException("WAIT timed out after " + timeoutMillis + " ms");
        }
        catch (ExecutionException ex) {
            throw translate((ex.getCause() instanceof RuntimeException runtime) ? runtime : new RedisException(ex));
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
        this.commands.eval(UNLOCK.body, ScriptOutputType.INTEGER, key.scriptKeyBytes(), bytes(args))
            .whenComplete((released, ex) -> {
                if (ex != null && logger.isDebugEnabled()) {
                    logger.debug("Could not undo an abandoned lock attempt", ex);
                }
            });
    }

    @Override
    public String get(String key) {
        byte[] value;
        try {
            value = await(this.commands.get(bytes(key)));
        }
        catch (RuntimeException ex) {
            throw translate(ex);
        }
        return (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
    }

    @Override
    public String serverVersion() {
        String info;
        try {
            info = await(this.commands.info("server"));
        }
        catch (RuntimeException ex) {
            throw translate(ex);
        }
        return versionIn(info);
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

    private <T> T run(Script script, ScriptOutputType type, byte[][] keys, byte[]... args) {
        try {
            try {
                return await(this.commands.evalsha(script.sha, type, keys, args));
            }
            catch (RedisNoScriptException ex) {
                // The server lost its script cache (restart, SCRIPT FLUSH): send the body once; EVAL caches it.
                return await(this.commands.eval(script.body, type, keys, args));
            }
        }
        catch (RuntimeException ex) {
            throw translate(ex);
        }
    }

    /** The same Spring {@code DataAccessException}s the template path raises, for one failure vocabulary. */
    private static RuntimeException translate(RuntimeException ex) {
        DataAccessException translated = EXCEPTIONS.convert(ex);
        return (translated != null) ? translated : ex;
    }

    private <T> T await(RedisFuture<T> future) {
        try {
            // A command timeout of 0 means none, to Lettuce and Spring Data alike.
            return (this.timeoutNanos > 0) ? future.get(this.timeoutNanos, TimeUnit.NANOSECONDS) : future.get();
        }
        catch (TimeoutException ex) {
            future.cancel(true);
            throw new RedisCommandTimeoutException("Command timed out after "
                    + Duration.ofNanos(this.timeoutNanos).toMillis() + " ms");
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof RedisException redis) {
                throw redis;
            }
            throw new RedisException(cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new RedisException("Interrupted while waiting for Redis", ex);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[][] bytes(String[] texts) {
        byte[][] bytes = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            bytes[i] = bytes(texts[i]);
        }
        return bytes;
    }

    /** Resolves the shared connection on first use; a failed lookup is retried by the next call. */
    private static final class LazyCommands implements LockCommands {

        private final LettuceConnectionFactory factory;

        private volatile LockCommands resolved;

        LazyCommands(LettuceConnectionFactory factory) {
            this.factory = factory;
        }

        private LockCommands commands() {
            LockCommands commands = this.resolved;
            if (commands == null) {
                synchronized (this) {
                    commands = this.resolved;
                    if (commands == null) {
                        commands = sharedConnectionOf(this.factory);
                        this.resolved = commands;
                    }
                }
            }
            return commands;
        }

        @Override
        public List<?> acquire(LockKey key, boolean mayQueue, String[] args) {
            return commands().acquire(key, mayQueue, args);
        }

        @Override
        public Long release(LockKey key, String[] args) {
            return commands().release(key, args);
        }

        @Override
        public String serverVersion() {
            return commands().serverVersion();
        }

        @Override
        public List<?> renew(String[] keys, String[] args) {
            return commands().renew(keys, args);
        }

        @Override
        public @Nullable CompletionStage<List<?>> renewAsync(String[] keys, String[] args) {
            return commands().renewAsync(keys, args);
        }

        @Override
        public long renewAndWait(String key, String[] args, int replicas, long timeoutMillis) {
            return commands().renewAndWait(key, args, replicas, timeoutMillis);
        }

        @Override
        public boolean keepsOrder() {
            LockCommands commands = this.resolved;
            return commands == null || commands.keepsOrder();
        }

        @Override
        public void releaseBehind(LockKey key, String[] args) {
            LockCommands commands = this.resolved;
            if (commands != null) { // otherwise nothing was ever sent
                commands.releaseBehind(key, args);
            }
        }

        @Override
        public String get(String key) {
            return commands().get(key);
        }
    }

    /** A script's body and SHA-1, computed once. */
    private static final class Script {

        final String sha;

        final byte[] body;

        Script(String name) {
            RedisScript<Object> script = LockScripts.load(name, Object.class);
            this.sha = script.getSha1();
            this.body = script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
        }
    }
}
