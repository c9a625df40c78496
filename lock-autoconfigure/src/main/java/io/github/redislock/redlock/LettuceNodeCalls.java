package io.github.redislock.redlock;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.ValueOutput;
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
 * been restarted with a new one), calls go through the template on those threads ({@link TemplateNodeCalls}), where,
 * as on Jedis, a node's calls may be applied in another order than they were made: what needs an order on a node
 * waits for the earlier call's answer ({@link Round#sendAfter}, an undo's {@link Round#whenAnswered}). A new store's
 * first calls are among them, so a lock it took may reach its last nodes after its take returned with a majority.
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
    private volatile @Nullable StatefulConnection<byte[], byte[]> connection;

    private final AtomicBoolean lookingUp = new AtomicBoolean();

    LettuceNodeCalls(String node, LettuceConnectionFactory factory, NodeCalls meanwhile, Executor executor) {
        this.node = node;
        this.factory = factory;
        this.meanwhile = meanwhile;
        this.executor = executor;
        lookUp();
    }

    /** Whether the shared connection is known: calls go out on it, in the order they are made. */
    boolean connected() {
        return this.connection != null;
    }

    @Override
    public <T> void script(NodeCommand command, Reply<T> reply) {
        StatefulConnection<byte[], byte[]> connection = this.connection;
        if (connection == null) {
            lookUp();
            this.meanwhile.script(command, reply);
            return;
        }
        send(connection, command, reply, false);
    }

    @Override
    public void get(String key, Reply<String> reply) {
        StatefulConnection<byte[], byte[]> connection = this.connection;
        if (connection == null) {
            lookUp();
            this.meanwhile.get(key, reply);
            return;
        }
        dispatch(connection, new Read<>(key.getBytes(StandardCharsets.UTF_8), reply, null, true));
    }

    private <T> void send(StatefulConnection<byte[], byte[]> connection, NodeCommand command, Reply<T> reply,
            boolean eval) {
        // Built rather than through evalsha(String, ...): the SHA-1 and the key count go as bytes encoded once, not
        // as text encoded on every call; and the command itself takes the reply, with no stage of its own.
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
            .add(eval ? command.script.body() : command.script.sha())
            .add(command.keyCount)
            .addKeys(command.keyBytes)
            .addValues(command.argBytes);
        dispatch(connection, new Script<>(connection, command, reply, eval, args));
    }

    /** Sends the command; a failure to send is its answer. */
    private static void dispatch(StatefulConnection<byte[], byte[]> connection, AnsweringCommand<?> sent) {
        try {
            connection.dispatch(sent);
        }
        catch (RuntimeException ex) {
            sent.completeExceptionally(ex);
        }
    }

    /** How the script's reply is read: an integer, or a flat array (of integers and bulk strings, as bytes). */
    @SuppressWarnings("unchecked")
    private static <T> CommandOutput<byte[], byte[], T> output(NodeScript script) {
        return (CommandOutput<byte[], byte[], T>) (script.integer() ? new IntegerOutput<>(ByteArrayCodec.INSTANCE)
                : new FlatArrayOutput());
    }

    /**
     * A failed call, translated as the template would; unless the node replied with an error, the connection is looked
     * up again before the next call (the same shared one, unless the factory was restarted).
     */
    private RuntimeException failed(Throwable ex) {
        Throwable cause = cause(ex);
        if (!(cause instanceof RedisCommandExecutionException)) {
            // Not an error reply: the connection may be gone for good (a factory restarted has a new one).
            this.connection = null;
        }
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
                    this.connection = sharedConnection();
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
    private @Nullable StatefulConnection<byte[], byte[]> sharedConnection() {
        // With a shared native connection the wrapper is only a handle on it: leaving it unclosed never closes or
        // leaks the shared connection, which Lettuce reconnects by itself.
        RedisConnection connection = this.factory.getConnection();
        Object nativeConnection = connection.getNativeConnection();
        if (nativeConnection instanceof RedisAsyncCommands<?, ?> commands) {
            return (StatefulConnection<byte[], byte[]>) commands.getStatefulConnection();
        }
        connection.close();
        return null;
    }

    /**
     * A script call: EVALSHA, or EVAL once the node said it lost its script cache; then, if the command reads a key
     * after it, that read, sent once the script answered (so that it follows the script whichever way it went).
     */
    private final class Script<T> extends AnsweringCommand<T> {

        private final StatefulConnection<byte[], byte[]> connection;

        private final NodeCommand command;

        private final Reply<T> reply;

        private final boolean eval;

        Script(StatefulConnection<byte[], byte[]> connection, NodeCommand command, Reply<T> reply, boolean eval,
                CommandArgs<byte[], byte[]> args) {
            super(eval ? CommandType.EVAL : CommandType.EVALSHA, output(command.script), args);
            this.connection = connection;
            this.command = command;
            this.reply = reply;
            this.eval = eval;
        }

        @Override
        void answered(@Nullable T value, @Nullable Throwable failure) {
            if (failure != null) {
                if (!this.eval && cause(failure) instanceof RedisNoScriptException) {
                    // The node lost its script cache (restart, SCRIPT FLUSH): the body once; EVAL caches it.
                    send(this.connection, this.command, this.reply, true);
                }
                else {
                    this.reply.accept(null, null, failed(failure));
                }
            }
            else if (this.command.readAfterBytes == null) {
                this.reply.accept(value, null, null);
            }
            else {
                dispatch(this.connection, new Read<>(this.command.readAfterBytes, this.reply, value, false));
            }
        }
    }

    /** A GET: on its own (the value is the answer), or after a script (the script's answer, and the value read). */
    private final class Read<T> extends AnsweringCommand<byte[]> {

        private final Reply<T> reply;

        private final @Nullable T scriptValue;

        private final boolean alone;

        Read(byte[] key, Reply<T> reply, @Nullable T scriptValue, boolean alone) {
            super(CommandType.GET, new ValueOutput<>(ByteArrayCodec.INSTANCE),
                    new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(key));
            this.reply = reply;
            this.scriptValue = scriptValue;
            this.alone = alone;
        }

        @Override
        @SuppressWarnings("unchecked")
        void answered(byte @Nullable [] value, @Nullable Throwable failure) {
            if (failure != null) {
                this.reply.accept(null, null, failed(failure));
            }
            else if (this.alone) {
                ((Reply<String>) this.reply).accept(text(value), null, null);
            }
            else {
                this.reply.accept(this.scriptValue, text(value), null);
            }
        }
    }
}
