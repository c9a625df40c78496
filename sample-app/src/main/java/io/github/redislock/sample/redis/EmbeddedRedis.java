package io.github.redislock.sample.redis;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.testsupport.RedisServer;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The throwaway {@code redis-server} that {@link LocalRedisEnvironmentPostProcessor} started, tied to the
 * application context's lifetime: registered as a bean (so it can be looked up) that is destroyed, stopping
 * the server, when the context closes or fails to start. A JVM shutdown hook in {@link RedisServer} covers a
 * context that never got this far.
 */
public final class EmbeddedRedis
        implements DisposableBean, ApplicationContextInitializer<ConfigurableApplicationContext> {

    /** The bean name under which the server is registered. */
    public static final String BEAN_NAME = "flashSaleEmbeddedRedis";

    private static final Log logger = LogFactory.getLog(EmbeddedRedis.class);

    private final RedisServer server;

    EmbeddedRedis(RedisServer server) {
        this.server = server;
    }

    public int port() {
        return this.server.port();
    }

    public String url() {
        return this.server.url();
    }

    public boolean isRunning() {
        return this.server.isRunning();
    }

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
        beanFactory.registerSingleton(BEAN_NAME, this);
        if (beanFactory instanceof DefaultSingletonBeanRegistry registry) {
            // Singletons registered by hand are not destroyed unless registered as disposable too.
            registry.registerDisposableBean(BEAN_NAME, this);
        }
    }

    @Override
    public void destroy() {
        this.server.close();
        logger.info("Stopped the local redis-server on port " + this.server.port());
    }
}
