package io.github.redislock.zookeeper;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.InstanceInfo;

/**
 * The instance registry of a ZooKeeper store: which application instance stands behind the random id that begins
 * an engine's tokens (the data of its lock nodes), so that the holder view can name the holder of any key with
 * nothing more written on the lock's path.
 * <p>
 * Each instance keeps one EPHEMERAL node, {@code <base path>/~instances/<owner id>}, holding its
 * {@link InstanceInfo#entry}. {@code ~} is a character {@link ZnodeNames} always percent-encodes, so no lock
 * name's node can be {@code ~instances}. The node needs no TTL: ZooKeeper deletes it when the session that made it
 * ends (a crashed instance's within the session timeout). It is written at {@link #publish}, and again at every
 * CONNECTED or RECONNECTED (after a new session the old node is gone; on the same session the write just finds
 * it), in the background: a write that fails is logged and made again at the next connection, since the registry
 * only informs and never fails the application or a lock.
 * <pre>
 * NEW --publish--&gt; PUBLISHED (node written now and at every connection) --withdraw--&gt; WITHDRAWN (node deleted)
 * NEW --withdraw--&gt; WITHDRAWN (nothing to delete)
 * </pre>
 * An entry read back is believed only when it is at most {@link InstanceInfo#MAX_ENTRY} bytes of valid UTF-8 in
 * exactly the entry's form; anything else is an unknown owner.
 */
final class InstanceNodes {

    private static final Log logger = LogFactory.getLog(InstanceNodes.class);

    /** The registry's node under the base path: a name {@link ZnodeNames#encode} never gives. */
    static final String NODE = "~instances";

    private final CuratorFramework client;

    private final String parent;

    private final ConnectionStateListener republish = this::connectionChanged;

    private final Object monitor = new Object();

    /** This instance's node and entry once published; {@code null} before, and after the withdrawal. */
    private @Nullable String path;

    private byte @Nullable [] entry;

    private boolean withdrawn;

    InstanceNodes(CuratorFramework client, String basePath) {
        this.client = client;
        this.parent = ZooKeeperLockStore.child(basePath, NODE);
    }

    /**
     * Writes this instance's node now and after every new connection until {@link #withdraw}; once.
     * @param self this instance
     * @param ownerId the random id that begins this instance's tokens
     * ({@link io.github.redislock.engine.LockTokens#id})
     */
    void publish(InstanceInfo self, String ownerId) {
        synchronized (this.monitor) {
            if (this.withdrawn || this.path != null) {
                return;
            }
            this.path = ZooKeeperLockStore.child(this.parent, ownerId);
            this.entry = self.entry().getBytes(StandardCharsets.UTF_8);
        }
        // Listening first: a connection made between the write and the listener is not missed.
        this.client.getConnectionStateListenable().addListener(this.republish);
        write();
    }

    private void connectionChanged(CuratorFramework client, ConnectionState state) {
        if (state == ConnectionState.CONNECTED || state == ConnectionState.RECONNECTED) {
            write();
        }
    }

    private void write() {
        String path;
        byte[] entry;
        synchronized (this.monitor) {
            path = this.path;
            entry = this.entry;
        }
        if (path == null || entry == null || this.client.getState() != CuratorFrameworkState.STARTED) {
            return;
        }
        try {
            this.client.create()
                .orSetData()
                .creatingParentContainersIfNeeded()
                .withMode(CreateMode.EPHEMERAL)
                .inBackground((client, event) -> {
                    if (event.getResultCode() != KeeperException.Code.OK.intValue()) {
                        logger.warn("Could not write this instance's node " + path + " in the redis-lock instance "
                                + "registry (the holder view shows its locks' holder as unknown until the next "
                                + "connection writes it): " + KeeperException.Code.get(event.getResultCode()));
                    }
                })
                .forPath(path, entry);
        }
        catch (Exception ex) {
            logger.warn("Could not write this instance's node " + path + " in the redis-lock instance registry", ex);
        }
    }

    /** Stops writing and deletes this instance's node (best effort: otherwise it goes with the session). */
    void withdraw() {
        String path;
        synchronized (this.monitor) {
            this.withdrawn = true;
            path = this.path;
            this.path = null;
        }
        if (path == null) {
            return;
        }
        this.client.getConnectionStateListenable().removeListener(this.republish);
        if (this.client.getState() != CuratorFrameworkState.STARTED) {
            return;
        }
        try {
            this.client.delete().quietly().forPath(path);
        }
        catch (Exception ex) {
            logger.debug("Could not delete this instance's registry node; it goes with the session", ex);
        }
    }

    /**
     * The instance behind an owner id, as its node has it; {@code null} when unknown (no node, an entry of
     * another form, or no answer).
     * @param ownerId a random id checked by {@link io.github.redislock.engine.LockTokens#idOf}
     */
    @Nullable InstanceInfo resolve(String ownerId) {
        byte[] data;
        try {
            data = this.client.getData().forPath(ZooKeeperLockStore.child(this.parent, ownerId));
        }
        catch (KeeperException.NoNodeException ex) {
            return null;
        }
        catch (Exception ex) {
            if (ex instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            logger.debug("Could not read the instance registry", ex);
            return null;
        }
        return InstanceInfo.parse(text(data, InstanceInfo.MAX_ENTRY));
    }

    /** The data as UTF-8 text when it is at most {@code max} bytes of valid UTF-8; otherwise {@code null}. */
    static @Nullable String text(byte @Nullable [] data, int max) {
        if (data == null || data.length > max) {
            return null;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(data))
                .toString();
        }
        catch (CharacterCodingException ex) {
            return null;
        }
    }
}
