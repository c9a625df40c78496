package io.github.redislock.zookeeper;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.InstanceInfo;
import io.github.redislock.engine.LockInspection;
import io.github.redislock.engine.LockInspection.Holder;
import io.github.redislock.engine.LockInspection.Holding;
import io.github.redislock.engine.LockInspection.State;
import io.github.redislock.engine.LockTokens;
import io.github.redislock.engine.Sharing;

/**
 * The holder view's read of a key on ZooKeeper ({@link ZooKeeperLockStore#inspect}): who holds it now, whoever it
 * is, from the key's lock nodes and the instance registry. Reads only; holds no state. The holders are the nodes
 * {@link Admission} admits (one for a write lock; the readers before the first write lock; a semaphore's first N),
 * the key's kind is its oldest node's, and every other node of the line waits. Nothing read back is trusted: a
 * node's data names a holder only when it is one of this library's tokens, and the registry's entry only when it
 * has the entry's form ({@link InstanceNodes#resolve}).
 */
final class LineInspector {

    /** How many times a line whose holders keep going is read before giving up ({@code OTHER}). */
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
        // A holder may go between reading the line and reading its node: the line is read again, a few times.
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            List<LineNode> line = this.line.lineNow(key);
            if (line.isEmpty()) {
                return LockInspection.free(key, 0);
            }
            List<LineNode> admitted = Admission.holders(line);
            List<Read> reads = new ArrayList<>(admitted.size());
            for (LineNode node : admitted) {
                Read read = read(key, node);
                if (read == null) {
                    break;
                }
                reads.add(read);
            }
            if (reads.size() == admitted.size()) {
                return inspection(key, line.get(0).sharing(), reads, line.size() - admitted.size());
            }
        }
        return new LockInspection(key, State.OTHER, null, null, null, null, null);
    }

    /**
     * The key as its holders' nodes say: an exclusive key as it has always been told (a holder whose data is no
     * token of ours is {@code OTHER}, naming nobody); a shared key with every holder listed (each named, or unknown
     * when its data is no token), described at the top by its newest holder, {@code OTHER} only when no holder's
     * data is a token of ours.
     */
    private static LockInspection inspection(String key, Sharing sharing, List<Read> reads, int waiting) {
        Read newest = reads.get(reads.size() - 1);
        Instant since = Instant.ofEpochMilli(newest.stat().getCtime());
        if (sharing.isExclusive()) {
            return new LockInspection(key, (newest.holder() != null) ? State.HELD : State.OTHER, newest.holder(),
                    newest.stat().getCzxid(), since, null, waiting);
        }
        List<Holding> holdings = new ArrayList<>(reads.size());
        boolean ours = false;
        for (Read read : reads) {
            ours |= read.holder() != null;
            holdings.add(new Holding((read.holder() != null) ? read.holder() : Holder.UNKNOWN,
                    read.stat().getCzxid(), null));
        }
        Holder top = ours ? ((newest.holder() != null) ? newest.holder() : Holder.UNKNOWN) : null;
        return new LockInspection(key, ours ? State.HELD : State.OTHER, top, newest.stat().getCzxid(), since, null,
                waiting, sharing, holdings);
    }

    /** One holder's node read: its stat and whom its data names; {@code null} when the node is gone. */
    private @Nullable Read read(String key, LineNode node) {
        Stat stat = new Stat();
        byte[] data;
        try {
            data = this.client.getData().storingStatIn(stat).forPath(ZooKeeperLockStore.child(key, node.name()));
        }
        catch (KeeperException.NoNodeException ex) {
            return null;
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
        return new Read(stat, holder);
    }

    /**
     * A holder's node as read.
     * @param holder whom its data names ({@code null}: its data is no token of this library)
     */
    private record Read(Stat stat, @Nullable Holder holder) {
    }
}
