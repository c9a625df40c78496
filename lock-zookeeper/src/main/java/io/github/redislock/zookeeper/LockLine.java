package io.github.redislock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import io.github.redislock.LockException;

/**
 * The lines of lock nodes under each key, for {@link ZooKeeperLockStore}: join one (an ephemeral sequential
 * node), wait for one's turn (a watch on the node just before, never polling), read one's fencing token, leave
 * (delete the node of an attempt that gave up). A waiting thread's states are in {@link Turn}.
 * <pre>
 * JOINED --first in sequence order--&gt; HEAD (the store makes it a lock)
 * JOINED --a node before it: watch it, park--&gt; PARKED --woken--&gt; JOINED (read the line again)
 * JOINED/PARKED --deadline, interrupt, failure, or its node gone with the session--&gt; LEFT (node deleted, watches removed)
 * </pre>
 */
final class LockLine {

    private static final Log logger = LogFactory.getLog(LockLine.class);

    /** The lock nodes' name, before Curator's protection prefix and ZooKeeper's sequence number. */
    private static final String NODE = "lock-";

    /** Curator's protected name ({@code _c_<uuid>-}), ours, then ZooKeeper's 10-digit sequence number. */
    private static final Pattern LOCK_NODE = Pattern.compile("_c_[0-9a-f-]{36}-" + NODE + "\\d{10}");

    private final CuratorFramework client;

    /** The threads parked now, woken when the session is lost. */
    private final Set<Turn> waiting = ConcurrentHashMap.newKeySet();

    LockLine(CuratorFramework client) {
        this.client = client;
    }

    /**
     * Joins the key's line: this attempt's ephemeral sequential node (Curator's protected mode), the key's parent
     * made as a container if missing.
     * @param token the request's token, kept as the node's data (for whoever looks at the node)
     * @param stat filled with the node's stat (its creation zxid), when Curator has it
     */
    String join(String key, String token, Stat stat) {
        try {
            return this.client.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(key + "/" + NODE, token.getBytes(StandardCharsets.UTF_8));
        }
        catch (Exception ex) {
            throw failure("create a lock node for", key, ex);
        }
    }

    /**
     * Waits until the node is first in its line: reads the line, and if a node is before it, watches that one
     * and sleeps until it goes (or the session ends). Reads again after every wake-up: the predecessor may have
     * been a waiter that gave up, not the holder.
     * @return true at the head of the line, false when the deadline passed first
     */
    boolean awaitTurn(String key, String node, long deadline) {
        WatcherRemoveCuratorFramework watches = this.client.newWatcherRemoveCuratorFramework();
        try {
            return awaitTurn(watches, key, node, deadline);
        }
        finally {
            // No watch outlives the wait: a waiter that gave up leaves nothing registered behind.
            watches.removeWatchers();
        }
    }

    private boolean awaitTurn(WatcherRemoveCuratorFramework watches, String key, String node, long deadline) {
        String mine = node.substring(node.lastIndexOf('/') + 1);
        while (true) {
            List<String> line = line(key);
            int index = line.indexOf(mine);
            if (index < 0) {
                throw new LockException("The lock node for '" + key + "' is gone: the ZooKeeper session ended "
                        + "while waiting");
            }
            if (index == 0) {
                return true;
            }
            Turn turn = new Turn(key);
            this.waiting.add(turn);
            try {
                if (watches.checkExists().usingWatcher(turn).forPath(key + "/" + line.get(index - 1)) != null
                        && !turn.await(deadline)) {
                    return false;
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new LockException("Interrupted while waiting for lock '" + key + "'", ex);
            }
            catch (Exception ex) {
                throw failure("watch the line of", key, ex);
            }
            finally {
                this.waiting.remove(turn);
            }
        }
    }

    /** The lock nodes under the key, oldest first; anything else under it is not ours and is left out. */
    private List<String> line(String key) {
        List<String> children;
        try {
            children = this.client.getChildren().forPath(key);
        }
        catch (Exception ex) {
            throw failure("read the line of", key, ex);
        }
        return sorted(children);
    }

    /**
     * The lock nodes under the key now, oldest first, for the holder view: none when the key has no node (the
     * container was never made, or the server deleted it once empty).
     */
    List<String> lineNow(String key) {
        try {
            return sorted(this.client.getChildren().forPath(key));
        }
        catch (KeeperException.NoNodeException ex) {
            return List.of();
        }
        catch (Exception ex) {
            throw failure("read the line of", key, ex);
        }
    }

    /** The lock nodes among the children, in sequence order. */
    private static List<String> sorted(List<String> children) {
        List<String> line = new ArrayList<>(children.size());
        for (String child : children) {
            if (LOCK_NODE.matcher(child).matches()) {
                line.add(child);
            }
        }
        line.sort(Comparator.comparing((String child) -> child.substring(child.length() - 10)));
        return line;
    }

    /** The node's creation zxid: from the create's answer, or read when Curator found the node again. */
    long fence(String node, Stat created) {
        if (created.getCzxid() != 0) {
            return created.getCzxid();
        }
        try {
            Stat stat = this.client.checkExists().forPath(node);
            if (stat == null) {
                throw new LockException("The lock node " + node + " is gone: the ZooKeeper session ended");
            }
            return stat.getCzxid();
        }
        catch (LockException ex) {
            throw ex;
        }
        catch (Exception ex) {
            throw failure("read the lock node of", node, ex);
        }
    }

    /** Leaves the line: an abandoned attempt's node goes before the call returns, even from an interrupted thread. */
    void leave(String node) {
        boolean interrupted = Thread.interrupted();
        try {
            this.client.delete().quietly().guaranteed().forPath(node);
        }
        catch (Exception ex) {
            logger.warn("Could not delete abandoned lock node " + node + " now; Curator deletes it when the "
                    + "connection is back, or it goes with the session", ex);
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Wakes every parked waiter: their nodes went with the session, and each finds it so when it reads its line. */
    void wakeAll() {
        this.waiting.forEach(Turn::wake);
    }

    /** Per key, how many threads are parked in its line now. */
    Map<String, Integer> waiting() {
        Map<String, Integer> counts = new TreeMap<>();
        for (Turn turn : this.waiting) {
            counts.merge(turn.key, 1, Integer::sum);
        }
        return counts;
    }

    /** A store call's failure as the LockException the caller gets (the interrupt flag restored). */
    static LockException failure(String action, String key, Exception ex) {
        if (ex instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return new LockException("Interrupted while trying to " + action + " lock '" + key + "'", ex);
        }
        if (ex instanceof LockException lockException) {
            return lockException;
        }
        return new LockException("Could not " + action + " lock '" + key + "' in ZooKeeper: " + ex, ex);
    }
}
