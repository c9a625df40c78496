package io.github.redislock.sample.redis;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.testsupport.RedisServer;

import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.ConfigurationPropertyState;
import org.springframework.core.env.Environment;

/**
 * Decides, before any connection is made, which Redis the sample should talk to: the one the user configured
 * ({@code spring.data.redis.url}, {@code host}, {@code port}, sentinel or cluster, from any property source:
 * {@code application.yml}, {@code --arguments}, {@code SPRING_DATA_REDIS_URL}...), else one already listening
 * on the local probe port (6379 unless {@code flash-sale.embedded-redis.probe-port} says otherwise), else none.
 * Shared by the application's start-up and the simulation launcher, so both pick the same Redis.
 */
public final class RedisLocator {

    /** The local port where an already-running Redis is looked for. */
    public static final String PROBE_PORT_PROPERTY = "flash-sale.embedded-redis.probe-port";

    public static final int DEFAULT_PROBE_PORT = 6379;

    private static final List<String> CONNECTION_PROPERTIES = List.of("spring.data.redis.url",
            "spring.data.redis.host", "spring.data.redis.port", "spring.data.redis.sentinel",
            "spring.data.redis.cluster");

    private RedisLocator() {
    }

    /** Where the Redis comes from. */
    public enum Source {
        /** Set by the user through {@code spring.data.redis.*}. */
        CONFIGURED,
        /** Nothing configured, but a server answers on the local probe port. */
        RUNNING_LOCALLY,
        /** Nothing configured and nothing listening: someone has to start one. */
        NONE
    }

    /**
     * @param source where the Redis comes from
     * @param description for a log line: which properties, or which port (never a password)
     * @param url for {@link Source#RUNNING_LOCALLY}, the URL to point {@code spring.data.redis.url} at;
     * otherwise {@code null}
     */
    public record Location(Source source, String description, String url) {
    }

    public static Location locate(Environment environment) {
        List<String> configured = configuredProperties(environment);
        if (!configured.isEmpty()) {
            return new Location(Source.CONFIGURED, describe(configured, environment), null);
        }
        int port = environment.getProperty(PROBE_PORT_PROPERTY, Integer.class, DEFAULT_PROBE_PORT);
        if (RedisServer.isListening(port)) {
            return new Location(Source.RUNNING_LOCALLY, "127.0.0.1:" + port, "redis://127.0.0.1:" + port);
        }
        return new Location(Source.NONE, "nothing listening on 127.0.0.1:" + port, null);
    }

    private static List<String> configuredProperties(Environment environment) {
        List<String> found = new ArrayList<>();
        for (String property : CONNECTION_PROPERTIES) {
            ConfigurationPropertyName name = ConfigurationPropertyName.of(property);
            for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
                // Relaxed names: also matches SPRING_DATA_REDIS_URL and spring.data.redis.cluster.nodes[0].
                if (source.getConfigurationProperty(name) != null
                        || source.containsDescendantOf(name) == ConfigurationPropertyState.PRESENT) {
                    found.add(property);
                    break;
                }
            }
        }
        return found;
    }

    private static String describe(List<String> properties, Environment environment) {
        String url = environment.getProperty("spring.data.redis.url");
        if (url != null) {
            return "spring.data.redis.url=" + withoutCredentials(url);
        }
        if (properties.contains("spring.data.redis.sentinel") || properties.contains("spring.data.redis.cluster")) {
            return String.join(", ", properties) + " (see spring.data.redis.*)";
        }
        String host = environment.getProperty("spring.data.redis.host", "localhost");
        String port = environment.getProperty("spring.data.redis.port", "6379");
        return host + ":" + port + " (spring.data.redis.host/port)";
    }

    /** A URL is fit for a log line only without its user info, which may hold a password. */
    static String withoutCredentials(String url) {
        try {
            URI uri = URI.create(url);
            if (uri.getRawUserInfo() == null) {
                return url;
            }
            return new URI(uri.getScheme(), "***", uri.getHost(), uri.getPort(), uri.getPath(), uri.getQuery(),
                    uri.getFragment()).toString();
        }
        catch (IllegalArgumentException | java.net.URISyntaxException ex) {
            return "(unparseable URL)";
        }
    }
}
