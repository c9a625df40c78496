package io.github.redislock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockStore;
import io.github.redislock.redis.support.KeySlots;
import io.github.redislock.storekit.RedisNodes;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.TestConnections;
import io.github.redislock.testsupport.TestConnections.ClientLibrary;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The single-Redis store under the kit, on one server or a cluster: each application a {@link RedisLockStore}
 * on a connection factory of its own (and its own housekeeping thread), as separate processes would have. A lock
 * is lost by deleting its key on the node that serves it, a share by taking its entry out of the key's holders; residue is any key beginning with the lock key (the
 * key, its queue and queue entries) on any node.
 */
final class RedisStoreFixture implements StoreFixture {

    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

    private final Supplier<RedisConnectionFactory> connect;

    private final List<RedisServer> nodes;

    private final Function<String, RedisServer> nodeFor;

    private final List<RedisConnectionFactory> factories = new ArrayList<>();

    private final List<ScheduledExecutorService> schedulers = new ArrayList<>();

    private RedisStoreFixture(Supplier<RedisConnectionFactory> connect, List<RedisServer> nodes,
            Function<String, RedisServer> nodeFor) {
        this.connect = connect;
        this.nodes = nodes;
        this.nodeFor = nodeFor;
    }

    static RedisStoreFixture standalone(RedisServer server, ClientLibrary library) {
        return new RedisStoreFixture(() -> library.connect(server, COMMAND_TIMEOUT), List.of(server), (key) -> server);
    }

    static RedisStoreFixture cluster(RedisCluster cluster, ClientLibrary library) {
        return new RedisStoreFixture(() -> library.connect(cluster, COMMAND_TIMEOUT), cluster.nodes(), cluster::nodeFor);
    }

    @Override
    public synchronized LockStore newStore() {
        RedisConnectionFactory factory = this.connect.get();
        this.factories.add(factory);
        ScheduledExecutorService scheduler = ConnectionKind.newScheduler();
        this.schedulers.add(scheduler);
        return new RedisLockStore(factory, "kit:", scheduler, 0, Duration.ZERO);
    }

    @Override
    public void loseLock(LockStore holder, String key) {
        this.nodeFor.apply(key).command("DEL", key);
    }

    /** A share is its entry among the key's holders (see {@code share.lua}): that entry alone goes. */
    @Override
    public void losePermit(LockStore holder, String key, String token) {
        this.nodeFor.apply(key).command("ZREM", KeySlots.holdersKey(key), token);
    }

    @Override
    public List<String> residue(String key) {
        return RedisNodes.keysOf(this.nodes, key, (name) -> false);
    }

    @Override
    public boolean publishInstance(LockStore store, InstanceInfo self, String ownerId) {
        store.publishInstance(self, ownerId);
        // As a bean, the store writes its entry when the context starts it.
        ((RedisLockStore) store).start();
        return true;
    }

    @Override
    public boolean leased() {
        return true;
    }

    @Override
    public synchronized void close() {
        this.schedulers.forEach(ScheduledExecutorService::shutdownNow);
        this.factories.forEach(TestConnections::destroy);
        this.nodes.forEach(RedisServer::flushAll);
    }
}
