package io.github.redislock.redis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.redislock.engine.DaemonThreads;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * What the application's connection factory is, as far as the engine cares: which client library, whether it
 * talks to a Redis Cluster, and so which transport the lock commands take. Client classes are only touched
 * when their library is on the class path.
 */
final class ConnectionKind {

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            ConnectionKind.class.getClassLoader());

    private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis",
            ConnectionKind.class.getClassLoader());

    private ConnectionKind() {
    }

    /** Whether the factory is Lettuce's, whose cluster client can subscribe sharded. */
    static boolean isLettuce(RedisConnectionFactory connectionFactory) {
        return LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory;
    }

    /** Whether the factory talks to a Redis Cluster: keys of one script must then share a slot. */
    static boolean isCluster(RedisConnectionFactory connectionFactory) {
        if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce) {
            return lettuce.isClusterAware();
        }
        return JEDIS_PRESENT && connectionFactory instanceof JedisConnectionFactory jedis && jedis.isRedisClusterAware();
    }

    /** Boot's shared Lettuce connection where there is one (the fast path), else a {@code StringRedisTemplate}. */
    static LockCommands commandsFor(RedisConnectionFactory connectionFactory) {
        if (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
                && LettuceLockCommands.supports(lettuce)) {
            return LettuceLockCommands.lazy(lettuce);
        }
        return new TemplateLockCommands(connectionFactory);
    }

    /**
     * The store's thread for queue work (leaving a key's queue, passing a hand-off on), apart from the one
     * that renews leases: what another client can cause (a hand-off message) never delays a renewal. One
     * daemon thread, ended when idle for ten seconds.
     */
    static ExecutorService newQueueWorker() {
        ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.named("redis-lock-queue"));
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }

    /**
     * The store's own housekeeping thread (subscription confirmations, queue entry refreshes), when the application
     * gives it no scheduler. It renews nothing: the engine's thread ({@code lock-renewal}) does.
     */
    static ScheduledExecutorService newScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                DaemonThreads.named("redis-lock-housekeeping"));
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
