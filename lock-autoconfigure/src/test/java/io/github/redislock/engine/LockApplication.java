package io.github.redislock.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.redislock.DistributedLockTemplate;
import io.github.redislock.LockLostEvent;
import io.github.redislock.support.ImportLockAutoConfiguration;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;
import io.github.redislock.testsupport.RedisSentinel;
import io.github.redislock.testsupport.RedisServer;

import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * One "application": a Spring context with Boot's Redis and AOP auto-configuration plus ours (the same set
 * as {@code LockContexts.runner}), with its own Redis connections and its own lock client. Several of them
 * on one server behave like several instances of a service. Unlike a context runner's context it stays open
 * until closed, so a test can run many side by side.
 */
final class LockApplication implements AutoCloseable {

    /** The key prefix every application here uses; raw Redis checks must include it. */
    static final String PREFIX = "engine-test:";

    private final AnnotationConfigApplicationContext context;

    private final List<LockLostEvent> lost;

    private LockApplication(AnnotationConfigApplicationContext context, List<LockLostEvent> lost) {
        this.context = context;
        this.lost = lost;
    }

    /**
     * Starts an application on the server. Defaults: key prefix {@link #PREFIX}, command timeout 2 s; the
     * given {@code name=value} properties come last and win.
     */
    static LockApplication start(RedisServer redis, String... properties) {
        return start(List.of("spring.data.redis.url=" + redis.url()), properties);
    }

    /**
     * Starts an application on the Sentinel-managed master, with Boot's own Sentinel properties and the given
     * client library.
     */
    static LockApplication start(RedisSentinel sentinel, ClientLibrary library, String... properties) {
        return start(List.of("spring.data.redis.sentinel.master=" + RedisSentinel.MASTER_NAME,
                "spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelAddresses()),
                "spring.data.redis.client-type=" + library.clientType()), properties);
    }

    private static LockApplication start(List<String> connection, String... properties) {
        // Unpooled Lettuce, Boot's default without commons-pool2 (which Jedis brings onto the test class path).
        List<String> all = new ArrayList<>(connection);
        all.addAll(List.of("spring.data.redis.lettuce.pool.enabled=false", "redis-lock.key-prefix=" + PREFIX,
                "spring.data.redis.timeout=2s"));
        all.addAll(List.of(properties));
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        TestPropertyValues.of(all).applyTo(context);
        List<LockLostEvent> lost = new CopyOnWriteArrayList<>();
        context.addApplicationListener((ApplicationListener<LockLostEvent>) lost::add);
        context.register(Config.class);
        try {
            context.refresh();
        }
        catch (RuntimeException ex) {
            context.close();
            throw ex;
        }
        return new LockApplication(context, lost);
    }

    DistributedLockTemplate template() {
        return this.context.getBean(DistributedLockTemplate.class);
    }

    /** The engine, for {@link LockEngine#renewNow()}. */
    LockEngine client() {
        return this.context.getBean(LockEngine.class);
    }

    /** The {@link LockLostEvent}s the application has published so far. */
    List<LockLostEvent> lostEvents() {
        return this.lost;
    }

    @Override
    public void close() {
        this.context.close();
    }

    @Configuration(proxyBeanMethods = false)
    @ImportLockAutoConfiguration
    static class Config {

    }
}
