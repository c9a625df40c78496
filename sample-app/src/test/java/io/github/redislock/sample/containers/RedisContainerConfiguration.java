package io.github.redislock.sample.containers;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;

/**
 * Redis in a container, connected to the application by {@code @ServiceConnection}: Spring Boot points its Redis
 * connection (and so the locks) at the container, whatever {@code spring.data.redis.*} says. Used by the
 * integration tests and by {@link TestFlashSaleApplication} ({@code mvn spring-boot:test-run}).
 * <p>
 * The image is {@value #DEFAULT_IMAGE} unless the {@code redis-lock.test.redis-image} system property or the
 * {@code REDIS_LOCK_TEST_REDIS_IMAGE} environment variable names another, such as one built locally where no
 * registry can be reached.
 */
@TestConfiguration(proxyBeanMethods = false)
public class RedisContainerConfiguration {

    /** The official Redis image. */
    public static final String DEFAULT_IMAGE = "redis:7.4";

    @Bean
    @ServiceConnection(name = "redis")
    GenericContainer<?> redisContainer() {
        // Ready when Redis says so (the port check would need a shell in the image, which a minimal one lacks).
        return new GenericContainer<>(image()).withExposedPorts(6379)
                .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
    }

    /** The configured image, declared a stand-in for the official one. */
    public static DockerImageName image() {
        String name = System.getProperty("redis-lock.test.redis-image", System.getenv("REDIS_LOCK_TEST_REDIS_IMAGE"));
        return (name == null || name.isBlank()) ? DockerImageName.parse(DEFAULT_IMAGE)
                : DockerImageName.parse(name).asCompatibleSubstituteFor("redis");
    }
}
