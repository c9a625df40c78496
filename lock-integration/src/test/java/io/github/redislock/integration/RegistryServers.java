package io.github.redislock.integration;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedlockMasters;
import io.github.redislock.testsupport.ZooKeeperServerExtension;

/**
 * The servers of a registry test that runs on every {@link RegistryStore}, as one JUnit extension: a Redis flushed
 * after each test, three Redlock masters brought back after each, a ZooKeeper server, all started once per class.
 */
final class RegistryServers implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, AfterAllCallback {

    final RedisServerExtension redis = RedisServerExtension.flushedAfterEach();

    final RedlockMasters masters = new RedlockMasters(3);

    final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

    @Override
    public void beforeAll(ExtensionContext context) {
        this.redis.beforeAll(context);
        this.masters.beforeAll(context);
        this.zookeeper.beforeAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        this.redis.beforeEach(context);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        this.redis.afterEach(context);
        this.masters.afterEach(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        this.zookeeper.afterAll(context);
        this.masters.afterAll(context);
        this.redis.afterAll(context);
    }
}
