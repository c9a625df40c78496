package io.github.redislock.redlock;

import java.util.Arrays;
import java.util.concurrent.Executor;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@link NodeCalls} as blocking {@link StringRedisTemplate} calls, each on a thread of the store's executor (the
 * {@code redlock-call} pool): for Jedis and any factory without a shared Lettuce connection, and for a Lettuce node
 * until its shared connection is known. The script and the read after it run one after the other on that thread.
 */
final class TemplateNodeCalls implements NodeCalls {

    private final StringRedisTemplate redis;

    private final Executor executor;

    TemplateNodeCalls(RedisConnectionFactory factory, Executor executor) {
        this.redis = new StringRedisTemplate(factory);
        this.executor = executor;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> void script(NodeCommand command, Reply<T> reply) {
        run(reply, () -> {
            T value;
            String read;
            try {
                value = this.redis.execute((RedisScript<T>) command.script.script(), Arrays.asList(command.keys),
                        (Object[]) command.args);
                read = (command.readAfter != null) ? this.redis.opsForValue().get(command.readAfter) : null;
            }
            catch (RuntimeException ex) {
                reply.accept(null, null, ex);
                return;
            }
            reply.accept(value, read, null);
        });
    }

    @Override
    public void get(String key, Reply<String> reply) {
        run(reply, () -> {
            String value;
            try {
                value = this.redis.opsForValue().get(key);
            }
            catch (RuntimeException ex) {
                reply.accept(null, null, ex);
                return;
            }
            reply.accept(value, null, null);
        });
    }

    /** Runs the call on the executor; when it cannot be handed over, the reply is told so. */
    private void run(Reply<?> reply, Runnable call) {
        try {
            this.executor.execute(call);
        }
        catch (RuntimeException ex) {
            reply.accept(null, null, ex);
        }
    }
}
