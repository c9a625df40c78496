package io.github.redislock.integration;

import java.time.Duration;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.engine.LockEngine;
import io.github.redislock.engine.LockLossListener;
import io.github.redislock.redis.RedisLockClient;
import io.github.redislock.redlock.RedlockClient;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.zookeeper.ZooKeeperLockStore;

/**
 * The stores a registry test runs on, for {@code @ParameterizedClass @EnumSource(RegistryStore.class)}: each engine
 * an application of its own, on connections (a session) of its own, over the servers the test class registered
 * ({@link RegistryServers}).
 */
enum RegistryStore {

    REDIS {
        @Override
        LockEngine engine(RegistryServers servers, LockLossListener losses, List<AutoCloseable> opened) {
            RedisConnectionFactory connections = TestConnections.lettuce(servers.redis.server(),
                    Duration.ofSeconds(5));
            opened.add(() -> TestConnections.destroy(connections));
            return new RedisLockClient(connections, PREFIX, Duration.ofSeconds(30), losses, null);
        }
    },

    REDLOCK {
        @Override
        LockEngine engine(RegistryServers servers, LockLossListener losses, List<AutoCloseable> opened) {
            List<RedisConnectionFactory> connections = servers.masters.connect(Duration.ofSeconds(5));
            opened.add(() -> connections.forEach(TestConnections::destroy));
            return new RedlockClient(connections, PREFIX, Duration.ofSeconds(30), losses);
        }
    },

    ZOOKEEPER {
        @Override
        LockEngine engine(RegistryServers servers, LockLossListener losses, List<AutoCloseable> opened) {
            CuratorFramework client = servers.zookeeper.server().client(10_000);
            opened.add(client::close);
            return new LockEngine(new ZooKeeperLockStore(client, "/registries", Duration.ofSeconds(5)),
                    Duration.ofSeconds(30), losses);
        }
    };

    private static final String PREFIX = "registries:";

    /**
     * A new application's engine on this store; what it opened besides the engine is added to {@code opened}, to
     * be closed after it.
     */
    abstract LockEngine engine(RegistryServers servers, LockLossListener losses, List<AutoCloseable> opened);
}
