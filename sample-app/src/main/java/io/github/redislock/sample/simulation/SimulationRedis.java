package io.github.redislock.sample.simulation;

import java.util.Map;

import io.github.redislock.sample.redis.RedisLocator;
import io.github.redislock.testsupport.RedisBinary;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.core.env.Environment;

/**
 * The one Redis that every instance of a simulation shares. Chosen like the application chooses (see
 * {@link RedisLocator}); when there is none, one local server is started here, for the whole simulation, and
 * its URL handed to every instance. Were each instance left to start its own, they would not share a lock.
 */
final class SimulationRedis implements AutoCloseable {

    private final RedisServer startedHere;

    private final String description;

    private final Map<String, String> instanceProperties;

    private SimulationRedis(RedisServer startedHere, String description, Map<String, String> instanceProperties) {
        this.startedHere = startedHere;
        this.description = description;
        this.instanceProperties = instanceProperties;
    }

    static SimulationRedis prepare(Environment environment) {
        RedisLocator.Location location = RedisLocator.locate(environment);
        switch (location.source()) {
            case CONFIGURED:
                // Every instance gets the user's arguments and reads the same configuration.
                return new SimulationRedis(null, "configured, " + location.description(), Map.of());
            case RUNNING_LOCALLY:
                return new SimulationRedis(null, "already running on " + location.description(),
                        Map.of("spring.data.redis.url", location.url()));
            default:
                RedisServer server = RedisServer.start();
                String description = "started for this simulation on 127.0.0.1:" + server.port() + " ("
                        + RedisBinary.describe() + ")";
                return new SimulationRedis(server, description, Map.of("spring.data.redis.url", server.url()));
        }
    }

    /** For the report header. */
    String description() {
        return this.description;
    }

    /** Properties that point an instance at this Redis (empty when the configuration already does). */
    Map<String, String> instanceProperties() {
        return this.instanceProperties;
    }

    /** Stops the server if it was started here; a Redis that was already there is left alone. */
    @Override
    public void close() {
        if (this.startedHere != null) {
            this.startedHere.close();
        }
    }
}
