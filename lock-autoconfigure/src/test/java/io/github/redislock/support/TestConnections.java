package io.github.redislock.support;

import java.time.Duration;

import io.github.redislock.testsupport.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** Lettuce connection factories on a test server, as Spring Boot would build them. */
public final class TestConnections {

    private TestConnections() {
    }

    /** A started factory with the given command timeout; the caller destroys it. */
    public static LettuceConnectionFactory lettuce(RedisServer redis, Duration commandTimeout) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(redis.host(), redis.port()),
                LettuceClientConfiguration.builder().commandTimeout(commandTimeout).build());
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }
}
