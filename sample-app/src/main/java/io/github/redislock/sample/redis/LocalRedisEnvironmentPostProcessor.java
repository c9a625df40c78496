package io.github.redislock.sample.redis;

import java.util.Map;

import org.apache.commons.logging.Log;

import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets the sample run from a fresh clone with nothing but Java installed. When no Redis is configured and none
 * answers on localhost:6379, it starts a local {@code redis-server} (the one on {@code PATH}, else a bundled
 * binary), points {@code spring.data.redis.url} at it and stops it with the application. Otherwise it only logs
 * which Redis is used. {@code flash-sale.embedded-redis.enabled=false} turns the fallback off.
 * <p>
 * A demo convenience, not a production pattern: a real deployment configures its Redis.
 * <p>
 * Runs after the configuration files are loaded (lowest precedence), so it sees everything the user set.
 * Registered in {@code META-INF/spring.factories}.
 */
public class LocalRedisEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    /** Whether to start a local redis-server when none is configured or running. */
    public static final String ENABLED_PROPERTY = "flash-sale.embedded-redis.enabled";

    private static final String PROPERTY_SOURCE_NAME = "flashSaleLocalRedis";

    private final Log logger;

    /** Logging is not set up yet at this point: the deferred log replays the lines once it is. */
    public LocalRedisEnvironmentPostProcessor(DeferredLogFactory logFactory) {
        this.logger = logFactory.getLog(LocalRedisEnvironmentPostProcessor.class);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        RedisLocator.Location location = RedisLocator.locate(environment);
        switch (location.source()) {
            case CONFIGURED -> this.logger.info("Using the configured Redis: " + location.description());
            case RUNNING_LOCALLY -> {
                pointAt(environment, location.url());
                this.logger.info("No Redis configured; using the one already running on " + location.description());
            }
            case NONE -> startLocalServer(environment, application, location);
        }
    }

    private void startLocalServer(ConfigurableEnvironment environment, SpringApplication application,
            RedisLocator.Location location) {
        if (!environment.getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
            this.logger.warn("No Redis configured and " + location.description() + "; not starting one because "
                    + ENABLED_PROPERTY + "=false. Set spring.data.redis.url.");
            return;
        }
        RedisServer server = RedisServer.start();
        pointAt(environment, server.url());
        application.addInitializers(new EmbeddedRedis(server));
        this.logger.info("No Redis configured and " + location.description() + ": started a local redis-server on "
                + "port " + server.port() + " using " + RedisBinary.describe() + ". It stops with the application; "
                + "set spring.data.redis.url to use your own Redis.");
    }

    /** As a last-resort property source, so that anything the user sets would still win. */
    private static void pointAt(ConfigurableEnvironment environment, String url) {
        environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE_NAME,
                Map.of("spring.data.redis.url", url)));
    }
}
