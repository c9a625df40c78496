package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.Locale;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Lettuce and Jedis connection factories on a test server or cluster, as Spring Boot would build them. */
public final class TestConnections {

    /** How long destroying a factory may take; it takes well under a second when nothing is stuck. */
    static final Duration DESTROY_LIMIT = Duration.ofSeconds(30);

    private TestConnections() {
    }

    /** The client libraries Spring Boot can connect with ({@code spring.data.redis.client-type}). */
    public enum ClientLibrary {

        LETTUCE, JEDIS;

        /** A started factory of this library with the given command timeout; the caller {@link #destroy}s it. */
        public RedisConnectionFactory connect(RedisServer redis, Duration commandTimeout) {
            return (this == LETTUCE) ? lettuce(redis, commandTimeout) : jedis(redis, commandTimeout);
        }

        /** A started factory of this library on every node of the cluster; the caller {@link #destroy}s it. */
        public RedisConnectionFactory connect(RedisCluster cluster, Duration commandTimeout) {
            RedisClusterConfiguration nodes = new RedisClusterConfiguration(cluster.nodeAddresses());
            return started((this == LETTUCE) ? new LettuceConnectionFactory(nodes, lettuceClient(commandTimeout))
                    : new JedisConnectionFactory(nodes, jedisClient(commandTimeout)));
        }

        /** The value of {@code spring.data.redis.client-type} that selects this library. */
        public String clientType() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A started factory with the given command timeout; the caller destroys it. */
    public static LettuceConnectionFactory lettuce(RedisServer redis, Duration commandTimeout) {
        return started(new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
                lettuceClient(commandTimeout)));
    }

    /**
     * A started, pooled Jedis factory (Boot's default for {@code client-type=jedis}) whose connect and read
     * timeouts are the command timeout, as Boot sets them from {@code spring.data.redis.timeout}; the caller
     * destroys it.
     */
    public static JedisConnectionFactory jedis(RedisServer redis, Duration commandTimeout) {
        return started(new JedisConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
                jedisClient(commandTimeout)));
    }

    private static LettuceClientConfiguration lettuceClient(Duration commandTimeout) {
        return LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build();
    }

    private static JedisClientConfiguration jedisClient(Duration commandTimeout) {
        return JedisClientConfiguration.builder().connectTimeout(commandTimeout).readTimeout(commandTimeout)
            .usePooling().build();
    }

    private static <F extends InitializingBean & SmartLifecycle> F started(F factory) {
        try {
            factory.afterPropertiesSet();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        factory.start();
        return factory;
    }

    /**
     * Destroys a factory made here, failing after {@link #DESTROY_LIMIT} rather than waiting for ever: Lettuce's
     * client shutdown waits for its connections to close without a limit, and a factory's lock is taken
     * uninterruptibly, while calls a closed store left on their way may still be connecting on it.
     * @throws IllegalStateException if it failed or did not end in time (see {@link BoundedCall})
     */
    public static void destroy(RedisConnectionFactory factory) {
        BoundedCall.run("destroying the connection factory " + describe(factory), DESTROY_LIMIT, () -> {
            ((DisposableBean) factory).destroy();
            return null;
        });
    }

    private static String describe(RedisConnectionFactory factory) {
        if (factory instanceof LettuceConnectionFactory lettuce) {
            return "(Lettuce) " + (lettuce.isClusterAware() ? "on a cluster"
                    : "on " + lettuce.getHostName() + ":" + lettuce.getPort());
        }
        if (factory instanceof JedisConnectionFactory jedis) {
            return "(Jedis) " + (jedis.isRedisClusterAware() ? "on a cluster"
                    : "on " + jedis.getHostName() + ":" + jedis.getPort());
        }
        return factory.toString();
    }
}
