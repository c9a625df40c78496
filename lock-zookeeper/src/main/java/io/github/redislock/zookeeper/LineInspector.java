package io.github.redislock.zookeeper;

import java.time.Instant;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockTokens;

/**
 * The holder view's read of a key on ZooKeeper ({@link ZooKeeperLockStore#inspect}): who holds it now, whoever it
 * is, from the key's lock nodes and the instance registry. Reads only; holds no state. Nothing read back is
 * trusted: the first node's data names a holder only when it is one of this library's tokens, and the registry's
 * entry only when it has the entry's form ({@link InstanceNodes#resolve}).
 */
final class LineInspector {

    /** How many times a line whose head keeps going is read before giving up ({@code OTHER}). */
    private static final int ATTEMPTS = 5;

    /** Longest lock node data read as a token: ours are at most 22 + 1 + 13 characters. */
    private static final int MAX_TOKEN_BYTES = 64;

    private final CuratorFramework client;

    private final LockLine line;

    private final InstanceNodes instances;

    LineInspector(CuratorFramework client, LockLine line, InstanceNodes instances) {
        this.client = client;
        this.line = line;
        this.instances = instances;
    }

    /** See {@link ZooKeeperLockStore#inspect}; the caller has a connection. */
    LockInspection inspect(String key) {
        // The head may go between reading the line and reading its node: the line is read again, a few times.
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            List<String> line = this.line.lineNow(key);
            if (line.isEmpty()) {
                return LockInspection.free(key, 0);
            }
            Stat stat = new Stat();
            byte[] data;
            try {
                data = this.client.getData().storingStatIn(stat).forPath(ZooKeeperLockStore.child(key, line.get(0)));
            }
            catch (KeeperException.NoNodeException ex) {
                continue;
            }
            catch (Exception ex) {
                throw LockLine.failure("inspect", key, ex);
            }
            String ownerId = LockTokens.idOf(InstanceNodes.text(data, MAX_TOKEN_BYTES));
            Holder holder = null;
            if (ownerId != null) {
                InstanceInfo instance = this.instances.resolve(ownerId);
                holder = (instance != null) ? Holder.of(instance) : Holder.UNKNOWN;
            }
            return new LockInspection(key, (ownerId != null) ? State.HELD : State.OTHER, holder, stat.getCzxid(),
                    Instant.ofEpochMilli(stat.getCtime()), null, line.size() - 1);
        }
        return new LockInspection(key, State.OTHER, null, null, null, null, null);
    }
}
