package io.github.redislock.sample.containers;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The test class runs only where Testcontainers finds a container engine (Docker, or podman through
 * {@code DOCKER_HOST}). Elsewhere it is skipped, saying why on the build's output; with the environment variable
 * {@code REDIS_LOCK_CONTAINER_TESTS=required} (CI sets it once it has provisioned an engine) it fails instead.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(ContainerEngineCondition.class)
public @interface RequiresContainerEngine {

}
