package io.github.redislock.sample;

import java.net.URI;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.sample.simulation.AppInstances;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Running sample instances (each a whole application with its web server) on a redis-server of the test class's
 * own, started before its tests and stopped after them, instances first:
 * {@code @RegisterExtension static final SampleOnRedis sale = SampleOnRedis.instances(2, Map.of(...))}.
 * Every instance gets {@code spring.data.redis.url} pointing at that server; {@link #more} starts other instances
 * on it, with other settings, stopped with the rest.
 */
final class SampleOnRedis implements BeforeAllCallback, AfterAllCallback {

    private final int count;

    private final Map<String, String> properties;

    private final List<AppInstances> started = new ArrayList<>();

    /** The server's lifetime is the class's: started first, stopped after the instances. */
    private final RedisServerExtension redis = RedisServerExtension.shared();

    private AppInstances instances;

    private SampleOnRedis(int count, Map<String, String> properties) {
        this.count = count;
        this.properties = properties;
    }

    /**
     * @param count how many instances to start, one after another
     * @param properties what every one of them is given besides the Redis URL
     */
    static SampleOnRedis instances(int count, Map<String, String> properties) {
        return new SampleOnRedis(count, properties);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        this.redis.beforeAll(context);
        this.instances = more(this.count, this.properties);
    }

    /** Starts {@code count} more instances on the same Redis, with these properties instead. */
    AppInstances more(int count, Map<String, String> properties) {
        Map<String, String> all = new LinkedHashMap<>(properties);
        all.put("spring.data.redis.url", this.redis.url());
        AppInstances more = AppInstances.start(count, List.of(), all);
        this.started.add(more);
        return more;
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // Also after a failed start: whatever did start stops, the applications before their Redis.
        Collections.reverse(this.started);
        this.started.forEach(AppInstances::close);
        this.started.clear();
        this.redis.afterAll(context);
    }

    /** The server, for reading and writing Redis directly, around the applications. */
    RedisServer redis() {
        return this.redis.server();
    }

    /** The instances started first. */
    AppInstances instances() {
        return this.instances;
    }

    /** {@code http://127.0.0.1:<port>} of each of the instances started first, in start order. */
    List<URI> uris() {
        return this.instances.baseUris();
    }
}
