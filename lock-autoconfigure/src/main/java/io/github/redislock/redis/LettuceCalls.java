package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import io.github.redislock.redis.support.LockScripts;

import org.springframework.core.convert.converter.Converter;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Calls on one Lettuce connection the way {@link LettuceLockCommands} makes them: scripts by EVALSHA, falling
 * back to EVAL once when the server has no copy; every wait bounded by the connection factory's command
 * timeout; failures translated to the same Spring {@code DataAccessException}s the template path raises, for
 * one failure vocabulary.
 */
final class LettuceCalls {

    /** As a Converter: its one method that Spring Data Redis 3.5 and 4.x both have. */
    private static final Converter<Exception, DataAccessException> EXCEPTIONS = new LettuceExceptionConverter();

    private final RedisClusterAsyncCommands<byte[], byte[]> commands;

    /** The factory's command timeout; 0 or less: none. */
    private final long timeoutNanos;

    LettuceCalls(RedisClusterAsyncCommands<byte[], byte[]> commands, Duration timeout) {
        this.commands = commands;
        this.timeoutNanos = timeout.toNanos();
    }

    /** The connection's commands, for calls these methods do not cover. */
    RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return this.commands;
    }

    /** The factory's command timeout in nanoseconds; 0 or less: none. */
    long timeoutNanos() {
        return this.timeoutNanos;
    }

    /**
     * Runs the script on the first {@code keyCount} keys with the arguments, and waits for its reply. The arrays
     * are not modified, and may be reused.
     */
    <T> T script(Script script, ScriptOutputType type, String[] keys, int keyCount, String... args) {
        try {
            try {
                return await(dispatch(CommandType.EVALSHA, type, new ScriptArgs(script.sha, keys, keyCount, args)));
            }
            catch (RedisNoScriptException ex) {
                // The server lost its script cache (restart, SCRIPT FLUSH): send the body once; EVAL caches it.
                return await(dispatch(CommandType.EVAL, type, new ScriptArgs(script.body, keys, keyCount, args)));
            }
        }
        catch (RuntimeException ex) {
            throw translate(ex);
        }
    }

    /** Sends the script without waiting: the stage completes with its reply, or the translated failure. */
    <T> CompletionStage<T> scriptAsync(Script script, ScriptOutputType type, String[] keys, String... args) {
        return this.<T>dispatch(CommandType.EVALSHA, type, new ScriptArgs(script.sha, keys, keys.length, args))
            .toCompletableFuture()
            .exceptionallyCompose((ex) -> {
                Throwable cause = (ex instanceof CompletionException) ? ex.getCause() : ex;
                if (cause instanceof RedisNoScriptException) {
                    return this.<T>dispatch(CommandType.EVAL, type,
                            new ScriptArgs(script.body, keys, keys.length, args)).toCompletableFuture();
                }
                return CompletableFuture.failedFuture((cause instanceof RuntimeException runtime)
                        ? translate(runtime) : cause);
            });
    }

    /**
     * Sends EVAL (never EVALSHA) without waiting for the reply: for a call with no second chance to fall back
     * on a server that lost its script cache.
     */
    <T> RedisFuture<T> evalWithoutWaiting(Script script, ScriptOutputType type, String[] keys, String... args) {
        return dispatch(CommandType.EVAL, type, new ScriptArgs(script.body, keys, keys.length, args));
    }

    /** The command with the output Lettuce's own {@code evalsha}/{@code eval} give a script of that type. */
    @SuppressWarnings("unchecked")
    private <T> RedisFuture<T> dispatch(CommandType command, ScriptOutputType type, ScriptArgs args) {
        CommandOutput<byte[], byte[], ?> output = switch (type) {
            case INTEGER -> new IntegerOutput<>(ByteArrayCodec.INSTANCE);
            case MULTI -> new NestedMultiOutput<>(ByteArrayCodec.INSTANCE);
            default -> throw new IllegalArgumentException("No lock script replies " + type);
        };
        return this.commands.dispatch(command, (CommandOutput<byte[], byte[], T>) output, args);
    }

    /** Sends a plain command and waits for its reply, failures translated. */
    <T> T call(Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
        try {
            return await(command.apply(this.commands));
        }
        catch (RuntimeException ex) {
            throw translate(ex);
        }
    }

    /** The same Spring {@code DataAccessException}s the template path raises, for one failure vocabulary. */
    static RuntimeException translate(RuntimeException ex) {
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

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** A script's body and SHA-1, computed once. */
    static final class Script {

        /** The SHA-1 in hexadecimal, as EVALSHA takes it. */
        final byte[] sha;

        final byte[] body;

        Script(String name) {
            RedisScript<Object> script = LockScripts.load(name, Object.class);
            this.sha = script.getSha1().getBytes(StandardCharsets.US_ASCII);
            this.body = script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
        }
    }
}
