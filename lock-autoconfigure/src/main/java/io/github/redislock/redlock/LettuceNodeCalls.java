package io.github.redislock.redlock;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.core.convert.converter.Converter;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;

/**
 * {@link NodeCalls} on the Lettuce connection the node's factory shares (no connection or client of our own): each
 * command is sent from the caller's thread and its reply taken on Lettuce's I/O thread, so that a round to five nodes
 * holds no thread while it waits, and a script and the read after it go out back to back (pipelined, answered in
 * order). Scripts go by EVALSHA, once more by EVAL when the node lost its script cache (and then the read again, so
 * that it still follows the script). Replies are bounded by the factory's command timeout as Lettuce enforces it
 * (Spring Data Redis's client options have it on by default); the store's per-node bound on calls on their way covers
 * client options without it.
 * <p>
 * The shared connection is looked up on a {@code redlock-call} thread, never the caller's (connecting to a node that
 * is down may take the connect timeout): until it is known, and again after a call failed (the factory may have
 * been restarted with a new one), calls go through the template on those threads ({@link TemplateNodeCalls}).
 */
final class LettuceNodeCalls implements NodeCalls {

    private static final Log logger = LogFactory.getLog(LettuceNodeCalls.class);

    /** As a Converter: its one method that Spring Data Redis 3.5 and 4.x both have. */
    private static final Converter<Exception, DataAccessException> EXCEPTIONS = new LettuceExceptionConverter();

    private final String node;

    private final LettuceConnectionFactory factory;

    private final NodeCalls meanwhile;

    private final Executor executor;

    /** The factory's shared connection once looked up; {@code null} before, and after a failed call. */
    private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

    private final AtomicBoolean lookingUp = new AtomicBoolean();

    LettuceNodeCalls(String node, LettuceConnectionFactory factory, NodeCalls meanwhile, Executor executor) {
        this.node = node;
        this.factory = factory;
        this.meanwhile = meanwhile;
        this.executor = executor;
        lookUp();
    }

    @Override
    public <T> void script(NodeCommand command, Reply<T> reply) {
        RedisClusterAsyncCommands<byte[], byte[]> connection = this.commands;
        if (connection == null) {
            lookUp();
            this.meanwhile.script(command, reply);
            return;
        }
        send(connection, command, reply, false);
    }

    @Override
    public void get(String key, Reply<String> reply) {
        RedisClusterAsyncCommands<byte[], byte[]> connection = this.commands;
        if (connection == null) {
            lookUp();
            this.meanwhile.get(key, reply);
            return;
        }
        RedisFuture<byte[]> value;
        try {
            value = connection.get(key.getBytes(StandardCharsets.UTF_8));
        }
        catch (RuntimeException ex) {
            reply.accept(null, null, failed(ex));
            return;
        }
        value.whenComplete((bytes, ex) -> {
            if (ex != null) {
                reply.accept(null, null, failed(ex));
            }
            else {
                reply.accept(text(bytes), null, null);
            }
        });
    }

    private <T> void send(RedisClusterAsyncCommands<byte[], byte[]> connection, NodeCommand command, Reply<T> reply,
            boolean eval) {
        RedisFuture<T> result;
        RedisFuture<byte[]> read;
        try {
            // Dispatched rather than through evalsha(String, ...): the SHA-1 and the key count go as bytes encoded
            // once, not as text encoded on every call.
            CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
                .add(eval ? command.script.body() : command.script.sha())
                .add(command.keyCount)
                .addKeys(command.keyBytes)
                .addValues(command.argBytes);
            result = connection.dispatch(eval ? CommandType.EVAL : CommandType.EVALSHA, output(command.script), args);
            read = (command.readAfterBytes != null) ? connection.get(command.readAfterBytes) : null;
        }
        catch (RuntimeException ex) {
            reply.accept(null, null, failed(ex));
            return;
        }
        result.whenComplete((value, ex) -> {
            if (ex != null) {
                if (!eval && cause(ex) instanceof RedisNoScriptException) {
                    // The node lost its script cache (restart, SCRIPT FLUSH): the body once; EVAL caches it.
                    send(connection, command, reply, true);
                }
                else {
                    reply.accept(null, null, failed(ex));
                }
            }
            else if (read == null) {
                reply.accept(value, null, null);
            }
            else {
                // Answered after the script's reply, on the same connection.
                read.whenComplete((bytes, readFailure) -> {
                    if (readFailure != null) {
                        reply.accept(null, null, failed(readFailure));
                    }
                    else {
                        reply.accept(value, text(bytes), null);
                    }
                });
            }
        });
    }

    /** How the script's reply is read: an integer, or an array (of integers and bulk strings, as bytes). */
    @SuppressWarnings("unchecked")
    private static <T> CommandOutput<byte[], byte[], T> output(NodeScript script) {
        return (CommandOutput<byte[], byte[], T>) (script.integer() ? new IntegerOutput<>(ByteArrayCodec.INSTANCE)
                : new NestedMultiOutput<>(ByteArrayCodec.INSTANCE));
    }

    /**
     * A failed call, translated as the template would; the connection is looked up again before the next call (the
     * same shared one, unless the factory was restarted).
     */
    private RuntimeException failed(Throwable ex) {
        this.commands = null;
        Throwable cause = cause(ex);
        RuntimeException failure = (cause instanceof RuntimeException runtime) ? runtime : new RedisException(cause);
        DataAccessException translated = EXCEPTIONS.convert(failure);
        return (translated != null) ? translated : failure;
    }

    private static Throwable cause(Throwable ex) {
        return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
    }

    private static @Nullable String text(byte @Nullable [] bytes) {
        return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : null;
    }

    /** Looks the shared connection up on the executor, one look-up at a time. */
    private void lookUp() {
        if (!this.lookingUp.compareAndSet(false, true)) {
            return;
        }
        try {
            this.executor.execute(() -> {
                try {
                    this.commands = sharedConnection();
                }
                catch (RuntimeException ex) {
                    logger.debug("Could not reach Redlock " + this.node + "; trying again with its next call", ex);
                }
                finally {
                    this.lookingUp.set(false);
                }
            });
        }
        catch (RuntimeException ex) {
            // Closed: calls go through the template, which fails them.
            this.lookingUp.set(false);
        }
    }

    /** The factory's shared native connection; {@code null} when it has none after all (the template then serves). */
    @SuppressWarnings("unchecked")
    private @Nullable RedisClusterAsyncCommands<byte[], byte[]> sharedConnection() {
        // With a shared native connection the wrapper is only a handle on it: leaving it unclosed never closes or
        // leaks the shared connection, which Lettuce reconnects by itself.
        RedisConnection connection = this.factory.getConnection();
        Object nativeConnection = connection.getNativeConnection();
        if (nativeConnection instanceof RedisClusterAsyncCommands<?, ?> commands) {
            return (RedisClusterAsyncCommands<byte[], byte[]>) commands;
        }
        connection.close();
        return null;
    }
}
