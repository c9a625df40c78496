package io.github.redislock.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.curator.framework.CuratorFramework;

import io.github.redislock.engine.LockStore;
import io.github.redislock.storekit.StoreFixture;
import io.github.redislock.testsupport.ZooKeeperServer;

/**
 * The ZooKeeper store under the kit: each application a Curator client of its own (its own session) with a
 * {@link ZooKeeperLockStore} on it. A lock is lost as ZooKeeper loses one, by its holder's session ending
 * ({@link ZooKeeperServer#expireSession}); so are a permit and a read lock, and everything a crashed application
 * held. Residue is any lock node under the key's parent node, read by the fixture's own client.
 */
final class ZooKeeperStoreFixture implements StoreFixture {

    private static final String BASE_PATH = "/kit";

    /** The longest session the test server allows (20 ticks): a loaded machine's pause does not end it. */
    private static final int SESSION_TIMEOUT_MILLIS = 10_000;

    private final ZooKeeperServer server;

    private final CuratorFramework reader;

    private final Map<LockStore, CuratorFramework> clients = new ConcurrentHashMap<>();

    ZooKeeperStoreFixture(ZooKeeperServer server) {
        this.server = server;
        this.reader = server.client(SESSION_TIMEOUT_MILLIS);
    }

    @Override
    public LockStore newStore() {
        CuratorFramework client = this.server.client(SESSION_TIMEOUT_MILLIS);
        ZooKeeperLockStore store = new ZooKeeperLockStore(client, BASE_PATH, Duration.ofSeconds(2));
        this.clients.put(store, client);
        return store;
    }

    /** Ends the holder's session: every lock, read lock and permit it holds is gone. */
    @Override
    public void loseLock(LockStore holder, String key) {
        try {
            this.server.expireSession(this.clients.get(holder));
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not end the session of " + holder.describe(), ex);
        }
    }

    /**
     * The crashed application's session ends, as the server ends it once the session timeout has passed without a
     * heartbeat: its nodes (locks, read locks, permits, waiting places) go with it.
     */
    @Override
    public void crashed(LockStore store) {
        loseLock(store, "(every key of the crashed application)");
    }

    @Override
    public List<String> residue(String key) {
        try {
            List<String> nodes = new ArrayList<>();
            if (this.reader.checkExists().forPath(key) != null) {
                for (String node : this.reader.getChildren().forPath(key)) {
                    nodes.add(key + "/" + node);
                }
            }
            return nodes;
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not read the lock nodes of " + key, ex);
        }
    }


    /** Locks last as long as the session that made their nodes. */
    @Override
    public boolean leased() {
        return false;
    }

    /** The client learns that its session ended when it reconnects, about at once on a local server. */
    @Override
    public Duration sessionLossNotice() {
        return Duration.ofSeconds(2);
    }

    /** Closes every application's client (its session, and with it any node still kept) and the reader. */
    @Override
    public void close() {
        this.clients.values().forEach(CuratorFramework::close);
        this.reader.close();
    }
}
