package io.github.redislock.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * One connection factory per Redlock node, built the way Spring Boot builds the application's own: the same
 * Spring Data Redis factory class with the client configuration Boot made from {@code spring.data.redis.*}
 * (timeouts, SSL, pool, client resources), and a {@link RedisStandaloneConfiguration} per node URL. No client
 * library of our own. Stopped with the application context, after the Redlock client.
 */
final class RedlockConnections implements DisposableBean {

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            RedlockConnections.class.getClassLoader());

    private static final boolean JEDIS_PRESENT = ClassUtils.isPresent("redis.clients.jedis.Jedis",
            RedlockConnections.class.getClassLoader());

    private final List<RedisConnectionFactory> factories;

    private RedlockConnections(List<RedisConnectionFactory> factories) {
        this.factories = List.copyOf(factories);
    }

    /**
     * Connections to the nodes, like the application's.
     * @throws LockConfigurationException for fewer than 3 nodes, a node URL that is not a Redis URL or appears
     * twice, or an application connection factory that is neither Lettuce's nor Jedis's
     */
    static RedlockConnections of(List<String> urls, RedisConnectionFactory application) {
        if (urls.size() < 3) {
            throw new LockConfigurationException("redis-lock.redlock.nodes lists " + urls.size()
                    + " Redis master(s); Redlock needs at least 3 independent ones to survive losing any minority.",
                    "List at least 3 (better 5) independent Redis masters in redis-lock.redlock.nodes, or remove "
                            + "the property to lock on the one Redis of spring.data.redis.");
        }
        List<RedisStandaloneConfiguration> nodes = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String url : urls) {
            RedisStandaloneConfiguration node = parse(url);
            if (!seen.add(node.getHostName() + ":" + node.getPort())) {
                throw new LockConfigurationException("redis-lock.redlock.nodes lists " + node.getHostName() + ":"
                        + node.getPort() + " twice; a node counted twice makes a majority of fewer masters.",
                        "List every Redis master once in redis-lock.redlock.nodes.");
            }
            nodes.add(node);
        }
        List<RedisConnectionFactory> factories = new ArrayList<>();
        try {
            for (RedisStandaloneConfiguration node : nodes) {
                factories.add(connect(node, application));
            }
        }
        catch (RuntimeException ex) {
            new RedlockConnections(factories).destroy();
            throw ex;
        }
        return new RedlockConnections(factories);
    }

    /**
     * The URL with the password of its user information masked ({@code redis://user:******@host}), as Boot's
     * {@code Sanitizer} masks URI credentials: a start-up failure's text ends up in logs.
     */
    static String masked(String url) {
        int scheme = url.indexOf("://");
        int start = (scheme >= 0) ? scheme + 3 : 0;
        int at = url.lastIndexOf('@');
        if (at < start) {
            return url;
        }
        int colon = url.indexOf(':', start);
        int passwordStart = (colon >= 0 && colon < at) ? colon + 1 : start;
        return url.substring(0, passwordStart) + "******" + url.substring(at);
    }

    private static RedisStandaloneConfiguration parse(String url) {
        URI uri;
        try {
            uri = new URI(url.trim());
        }
        catch (URISyntaxException ex) {
            uri = null;
        }
        if (uri == null || !"redis".equals(uri.getScheme()) || uri.getHost() == null) {
            throw new LockConfigurationException("redis-lock.redlock.nodes has '" + masked(url) + "', which is not a "
                    + "redis:// URL with a host.", "Write each node as redis://[user:password@]host:port[/database]; "
                            + "TLS comes from spring.data.redis.ssl, for all nodes alike.");
        }
        RedisStandaloneConfiguration node = new RedisStandaloneConfiguration(uri.getHost(),
                (uri.getPort() > 0) ? uri.getPort() : 6379);
        String userInfo = uri.getUserInfo();
        if (userInfo != null) {
            int colon = userInfo.indexOf(':');
            if (colon < 0) {
                node.setPassword(userInfo);
            }
            else {
                if (colon > 0) {
                    node.setUsername(userInfo.substring(0, colon));
                }
                node.setPassword(userInfo.substring(colon + 1));
            }
        }
        String path = uri.getPath();
        if (path != null && path.length() > 1) {
            node.setDatabase(Integer.parseInt(path.substring(1)));
        }
        return node;
    }

    private static RedisConnectionFactory connect(RedisStandaloneConfiguration node, RedisConnectionFactory application) {
        if (LETTUCE_PRESENT && application instanceof LettuceConnectionFactory lettuce) {
            LettuceConnectionFactory factory = new LettuceConnectionFactory(node, lettuce.getClientConfiguration());
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }
        if (JEDIS_PRESENT && application instanceof JedisConnectionFactory jedis) {
            JedisConnectionFactory factory = new JedisConnectionFactory(node, jedis.getClientConfiguration());
            factory.afterPropertiesSet();
            factory.start();
            return factory;
        }
        throw new LockConfigurationException("redis-lock.redlock.nodes needs the application's connection factory to "
                + "be Lettuce's or Jedis's, to connect to the nodes with the same settings; it is "
                + application.getClass().getName() + ".",
                "Use Spring Boot's Redis auto-configuration (spring.data.redis.client-type lettuce or jedis).");
    }

    List<RedisConnectionFactory> factories() {
        return this.factories;
    }

    @Override
    public void destroy() {
        for (RedisConnectionFactory factory : this.factories) {
            try {
                ((DisposableBean) factory).destroy();
            }
            catch (Exception ex) {
                // Closing connections to a node that is gone cannot lose anything.
            }
        }
    }
}
