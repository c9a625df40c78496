package io.github.redislock.redlock;

import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * How commands reach one Redlock node without holding the caller's thread: each call returns at once and its reply
 * comes to a {@link Reply}, on whichever thread received it, so that a round goes out to every node from the
 * caller's thread and the caller waits once for the outcome. On Lettuce with a shared native connection (Spring
 * Boot's default) the commands go out on that connection and their replies come on its I/O thread
 * ({@link LettuceNodeCalls}); otherwise (Jedis, a Lettuce factory without a shared connection) each call is a blocking
 * template call on the store's {@code redlock-call} threads ({@link TemplateNodeCalls}). Errors reach the reply as
 * the client library's exceptions, translated to Spring's where the template would have.
 */
interface NodeCalls {

    /** Whether Lettuce is on the class path: the Lettuce transport's classes are touched only then. */
    boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient", NodeCalls.class.getClassLoader());

    /**
     * Runs the command's script, and reads its {@code readAfter} key afterwards on the same connection; the reply gets
     * exactly one call.
     */
    <T> void script(NodeCommand command, Reply<T> reply);

    /** Reads a key; the reply gets its value (or {@code null}) as its value. */
    void get(String key, Reply<String> reply);

    /** The transport for this factory: Lettuce's shared connection where there is one, else the template's. */
    static NodeCalls of(String node, RedisConnectionFactory factory, Executor executor) {
        TemplateNodeCalls template = new TemplateNodeCalls(factory, executor);
        if (LETTUCE_PRESENT && factory instanceof LettuceConnectionFactory lettuce && !lettuce.isClusterAware()
                && lettuce.getShareNativeConnection()) {
            return new LettuceNodeCalls(node, lettuce, template, executor);
        }
        return template;
    }

    /**
     * Where one reply goes.
     * @param <T> the script's reply type
     */
    @FunctionalInterface
    interface Reply<T> {

        /**
         * @param value the reply, {@code null} on failure
         * @param read the value of the command's {@code readAfter} key, if it had one
         * @param failure why no reply came, {@code null} when one did
         */
        void accept(@Nullable T value, @Nullable String read, @Nullable RuntimeException failure);
    }
}
