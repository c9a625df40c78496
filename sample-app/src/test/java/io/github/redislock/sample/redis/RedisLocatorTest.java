package io.github.redislock.sample.redis;

import java.util.Map;

import io.github.redislock.sample.UnusedPort;
import io.github.redislock.sample.redis.RedisLocator.Location;
import io.github.redislock.sample.redis.RedisLocator.Source;
import org.junit.jupiter.api.Test;

import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** How "is a Redis configured?" is answered, for each way a user may configure one. */
class RedisLocatorTest {

    @Test
    void urlCountsAsConfiguredAndItsPasswordIsNotRepeated() {
        Location location = RedisLocator.locate(nothingLocal().withProperty("spring.data.redis.url",
                "redis://app:s3cret@redis.example:6380"));
        assertThat(location.source()).isEqualTo(Source.CONFIGURED);
        assertThat(location.description()).contains("redis.example:6380").doesNotContain("s3cret");
    }

    @Test
    void environmentVariableCountsAsConfigured() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("SPRING_DATA_REDIS_HOST", "redis.example")));
        assertThat(RedisLocator.locate(environment).source()).isEqualTo(Source.CONFIGURED);
    }

    @Test
    void clusterNodesCountAsConfigured() {
        Location location = RedisLocator.locate(nothingLocal().withProperty("spring.data.redis.cluster.nodes[0]",
                "10.0.0.1:7000"));
        assertThat(location.source()).isEqualTo(Source.CONFIGURED);
    }

    @Test
    void otherRedisSettingsAloneDoNotSayWhereRedisIs() {
        Location location = RedisLocator.locate(nothingLocal().withProperty("spring.data.redis.timeout", "2s"));
        assertThat(location.source()).isEqualTo(Source.NONE);
    }

    /** An environment whose probe port has nothing behind it. */
    private static MockEnvironment nothingLocal() {
        return new MockEnvironment().withProperty(RedisLocator.PROBE_PORT_PROPERTY,
                Integer.toString(UnusedPort.find()));
    }
}
