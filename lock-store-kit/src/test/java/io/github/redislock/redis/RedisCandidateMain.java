package io.github.redislock.redis;

import java.time.Duration;

import io.github.redislock.engine.LockLossListener;
import io.github.redislock.storekit.CandidateProcess;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A leader candidate on one Redis in a JVM of its own ({@link CandidateProcess}).
 * <p>
 * Arguments: host port key-prefix election lease-ms
 */
public final class RedisCandidateMain {

    private RedisCandidateMain() {
    }

    public static void main(String[] args) throws Exception {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        try (RedisLockClient engine = new RedisLockClient(factory, args[2], Duration.ofMillis(Long.parseLong(args[4])),
                LockLossListener.NONE, null)) {
            CandidateProcess.serve(args[3], engine);
        }
        factory.destroy();
    }
}
