package io.github.redislock.sample.simulation;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.redislock.sample.FlashSaleApplication;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Several instances of the app in one JVM: separate Spring application contexts, each with its own web server on
 * a random port and its own Redis connection factory, as separate processes would have. What they share is only
 * what separate processes would share: the Redis server.
 */
public final class AppInstances implements AutoCloseable {

    /**
     * Keeps the console for the simulation's report; the apps only speak up about problems. One start-up warning
     * is silenced: redis-lock's configuration properties bean is created early, while post-processors are still
     * being registered (reported to the library, harmless here: the properties are bound), and it would print
     * once per instance.
     */
    private static final Map<String, Object> QUIET = Map.of("spring.main.banner-mode", "off",
            "spring.main.log-startup-info", "false", "logging.level.root", "WARN",
            "logging.level.org.springframework.context.support.PostProcessorRegistrationDelegate", "ERROR");

    private final List<ConfigurableApplicationContext> contexts;

    private AppInstances(List<ConfigurableApplicationContext> contexts) {
        this.contexts = contexts;
    }

    /**
     * Starts {@code count} instances, one after another.
     * @param arguments command-line arguments given to every instance
     * @param fixed properties every instance must have; they replace any argument setting the same property
     */
    public static AppInstances start(int count, List<String> arguments, Map<String, String> fixed) {
        List<ConfigurableApplicationContext> started = new ArrayList<>();
        try {
            for (int i = 1; i <= count; i++) {
                Map<String, String> properties = new LinkedHashMap<>(fixed);
                properties.put("server.port", "0");
                properties.put("flash-sale.instance-name", "instance-" + i);
                SpringApplication application = new SpringApplication(FlashSaleApplication.class);
                application.setDefaultProperties(QUIET);
                started.add(application.run(commandLine(arguments, properties)));
            }
        }
        catch (RuntimeException ex) {
            new AppInstances(started).close();
            throw ex;
        }
        return new AppInstances(started);
    }

    /** {@code http://127.0.0.1:<port>} of each instance, in start order. */
    public List<URI> baseUris() {
        return this.contexts.stream()
                .map((context) -> context.getEnvironment().getProperty("local.server.port"))
                .map((port) -> URI.create("http://127.0.0.1:" + port))
                .toList();
    }

    /** A bean of the first instance; for reading Redis directly, around the HTTP traffic. */
    public <T> T bean(Class<T> type) {
        return this.contexts.get(0).getBean(type);
    }

    @Override
    public void close() {
        for (ConfigurableApplicationContext context : this.contexts) {
            context.close();
        }
    }

    private static String[] commandLine(List<String> arguments, Map<String, String> properties) {
        List<String> line = new ArrayList<>();
        for (String argument : arguments) {
            if (!properties.containsKey(optionName(argument))) {
                line.add(argument);
            }
        }
        properties.forEach((name, value) -> line.add("--" + name + "=" + value));
        return line.toArray(String[]::new);
    }

    /** {@code server.port} for {@code --server.port=8080}; null for a non-option argument. */
    private static String optionName(String argument) {
        if (!argument.startsWith("--")) {
            return null;
        }
        int equals = argument.indexOf('=');
        return (equals < 0) ? argument.substring(2) : argument.substring(2, equals);
    }
}
