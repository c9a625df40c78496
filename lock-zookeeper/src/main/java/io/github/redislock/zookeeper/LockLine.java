package io.github.redislock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.WatcherRemoveCuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

import io.github.redislock.LockException;
import io.github.redislock.engine.Sharing;

/**
 * The lines of lock nodes under each key, for {@link ZooKeeperLockStore}: join one (an ephemeral sequential
 * node named for how it shares the key, {@link LineNode}), wait for one's turn as {@link Admission} rules
 * (watches on the nodes whose departure may admit it, never polling), read one's fencing token, leave (delete the
 * node of an attempt that gave up). A waiting thread's wake-ups are its {@link Turn}.
 * <pre>
 * JOINED --admitted (a write lock first; a read lock with no write lock before it; a permit with fewer than N
 *          nodes before it)--&gt; ADMITTED (the store makes it a lock)
 * JOINED --an earlier node of another permit count--&gt; MISMATCHED (the take fails at once naming both; node deleted)
 * JOINED --not admitted: watch the nodes Admission names, park--&gt; PARKED --woken--&gt; JOINED (read the line again)
 * JOINED/PARKED --deadline, interrupt, failure, or its node gone with the session--&gt; LEFT (node deleted, watches removed)
 * </pre>
 */
final class LockLine {

    private static final Log logger = LogFactory.getLog(LockLine.class);

    private final CuratorFramework client;

    /** The threads parked now, woken when the session is lost. */
    private final Set<Turn> waiting = ConcurrentHashMap.newKeySet();

    LockLine(CuratorFramework client) {
        this.client = client;
    }

    /**
     * Joins the key's line: this attempt's ephemeral sequential node (Curator's protected mode), named for how it
     * shares the key, the key's parent made as a container if missing.
     * @param token the request's token, kept as the node's data (for whoever looks at the node)
     * @param stat filled with the node's stat (its creation zxid), when Curator has it
     */
    String join(String key, String token, Sharing sharing, Stat stat) {
        try {
            return this.client.create()
                .storingStatIn(stat)
                .creatingParentContainersIfNeeded()
                .withProtection()
                .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .forPath(key + "/" + LineNode.prefix(sharing), token.getBytes(StandardCharsets.UTF_8));
        }
        catch (Exception ex) {
            throw failure("create a lock node for", key, ex);
        }
    }

    /**
     * Waits until the node is admitted: reads the line, and if the node must wait, watches the nodes whose
     * departure may admit it and sleeps until one goes (or the session ends). Reads again after every wake-up:
     * the node that went may have been a waiter that gave up, not a holder.
     * @return true once admitted, false when the deadline passed first
     * @throws LockException at once when an earlier node of the line uses the key with another permit count
     * ({@link Sharing#mismatch})
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
        Turn turn = new Turn(key);
        while (true) {
            turn.reset();
            List<LineNode> line = line(key);
            int index = indexOf(line, mine);
            if (index < 0) {
                throw new LockException("The lock node for '" + key + "' is gone: the ZooKeeper session ended "
                        + "while waiting");
            }
            Admission.Verdict verdict = Admission.judge(line, index);
            if (verdict.admitted()) {
                return true;
            }
            if (verdict.mismatch() != null) {
                throw line.get(index).sharing().mismatch(key, verdict.mismatch());
            }
            this.waiting.add(turn);
            try {
                if (watch(watches, turn, key, verdict.watch()) && !turn.await(deadline)) {
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

    /**
     * Watches the nodes not watched yet by this turn.
     * @return false when one of them is gone already: the line is read again at once
     */
    private static boolean watch(WatcherRemoveCuratorFramework watches, Turn turn, String key, List<LineNode> nodes)
            throws Exception {
        for (LineNode node : nodes) {
            String path = key + "/" + node.name();
            if (turn.arm(path) && watches.checkExists().usingWatcher(turn).forPath(path) == null) {
                turn.disarm(path);
                return false;
            }
        }
        return true;
    }

    private static int indexOf(List<LineNode> line, String name) {
        for (int i = 0; i < line.size(); i++) {
            if (line.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The lock nodes under the key, oldest first; anything else under it is not ours and is left out. */
    private List<LineNode> line(String key) {
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
    List<LineNode> lineNow(String key) {
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
    private static List<LineNode> sorted(List<String> children) {
        List<LineNode> line = new ArrayList<>(children.size());
        for (String child : children) {
            LineNode node = LineNode.parse(child);
            if (node != null) {
                line.add(node);
            }
        }
        line.sort(Comparator.comparing(LineNode::sequence));
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
