package io.github.redislock.zookeeper;

import java.util.HashSet;
import java.util.Set;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One waiting thread's wake-up: the watches on the nodes before its own whose departure may admit it (one for a
 * lock, the N nearest for a semaphore's permit, see {@link Admission}). Fires when a watched node is deleted (or
 * changed), when the session ends, or when the store tells every waiter that the session is lost; the waiter
 * then reads its line again. A disconnection alone does not fire it: ZooKeeper keeps the watches across a
 * reconnection to the same session. It remembers which watches are still armed (set and not fired), so that a
 * waiter woken by one node's departure sets watches only on the nodes new to it, not again on the others.
 * <pre>
 * WATCHING --a watched node's event, session expired or closed, store's wake()--&gt; FIRED
 * FIRED --reset (the waiter reads its line again and watches what it must)--&gt; WATCHING
 * WATCHING --deadline passes--&gt; (the waiter gives up; its node is deleted and its watches removed)
 * </pre>
 */
final class Turn implements Watcher {

    /** The key the waiter waits for (for the store's waiting counts). */
    final String key;

    private boolean fired;

    /** The paths watched whose watch has not fired yet. */
    private final Set<String> armed = new HashSet<>();

    Turn(String key) {
        this.key = key;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None) {
            synchronized (this) {
                this.armed.remove(event.getPath());
            }
            wake();
        }
        else if (event.getState() == Event.KeeperState.Expired || event.getState() == Event.KeeperState.Closed) {
            synchronized (this) {
                this.armed.clear();
            }
            wake();
        }
    }

    /**
     * Counts a watch as set on the path, before it is set (so that its event, however soon, is not missed).
     * @return false when a watch on it is armed already: nothing to set
     */
    synchronized boolean arm(String path) {
        return this.armed.add(path);
    }

    /** The watch on the path was not set, or watches for a node that is gone already. */
    synchronized void disarm(String path) {
        this.armed.remove(path);
    }

    /** Back to WATCHING before the line is read again: an event from now on wakes the next wait. */
    synchronized void reset() {
        this.fired = false;
    }

    synchronized void wake() {
        this.fired = true;
        notifyAll();
    }

    /**
     * Parks until fired or the deadline ({@link System#nanoTime()}) passes.
     * @return true if fired, false if the deadline passed first
     * @throws InterruptedException if the thread is interrupted while parked
     */
    synchronized boolean await(long deadlineNanos) throws InterruptedException {
        while (!this.fired) {
            long remaining = deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            // Object.wait takes millis and nanos; a whole millisecond at least, or it spins.
            long millis = Math.max(1, remaining / 1_000_000);
            wait(millis);
        }
        return true;
    }
}
