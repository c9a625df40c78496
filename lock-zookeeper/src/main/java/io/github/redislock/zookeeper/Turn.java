package io.github.redislock.zookeeper;

import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;

/**
 * One waiting thread's wake-up: the watch on its predecessor node. Fires when the predecessor is deleted (or
 * changed), when the session ends, or when the store tells every waiter that the session is lost; the waiter
 * then reads its line again. A disconnection alone does not fire it: ZooKeeper keeps the watch across a
 * reconnection to the same session.
 * <pre>
 * WATCHING --predecessor event, session expired or closed, store's wake()--&gt; FIRED (the waiter reads its line again)
 * WATCHING --deadline passes--&gt; (the waiter gives up; its node is deleted and its watches removed)
 * </pre>
 */
final class Turn implements Watcher {

    /** The key the waiter waits for (for the store's waiting counts). */
    final String key;

    private boolean fired;

    Turn(String key) {
        this.key = key;
    }

    @Override
    public void process(WatchedEvent event) {
        if (event.getType() != Event.EventType.None || event.getState() == Event.KeeperState.Expired
                || event.getState() == Event.KeeperState.Closed) {
            wake();
        }
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
