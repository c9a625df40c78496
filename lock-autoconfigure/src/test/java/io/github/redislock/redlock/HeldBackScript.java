package io.github.redislock.redlock;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.event.command.CommandSucceededEvent;

/**
 * A slow path to one node, for tests of what is sent while a call is on its way: once {@linkplain #arm armed},
 * the next script call to the node is held in the client, on its caller's thread before it is written to the
 * connection, until {@link #letGo}; calls made meanwhile by other threads go ahead of it, as they could over a
 * pool of connections or a slow network. Registered on the node's Lettuce client before its first connection.
 * <pre>
 * state    event                                   next state
 * IDLE     arm                                     ARMED
 * ARMED    a script call starts                    HOLDING (that call waits; {@link #awaitHeld} returns)
 * HOLDING  letGo                                   SENT (the call is written; {@link #awaitApplied} returns once
 *                                                  the node answered it)
 * </pre>
 */
final class HeldBackScript implements CommandListener {

    private static final String MARK = HeldBackScript.class.getName();

    private final AtomicBoolean armed = new AtomicBoolean();

    private final CountDownLatch held = new CountDownLatch(1);

    private final CountDownLatch released = new CountDownLatch(1);

    private final CountDownLatch applied = new CountDownLatch(1);

    void arm() {
        this.armed.set(true);
    }

    @Override
    public void commandStarted(CommandStartedEvent event) {
        String type = event.getCommand().getType().toString();
        if (!type.startsWith("EVAL") || !this.armed.compareAndSet(true, false)) {
            return;
        }
        event.getContext().put(MARK, Boolean.TRUE);
        this.held.countDown();
        try {
            this.released.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void commandSucceeded(CommandSucceededEvent event) {
        if (event.getContext().containsKey(MARK)) {
            this.applied.countDown();
        }
    }

    @Override
    public void commandFailed(CommandFailedEvent event) {
        if (event.getContext().containsKey(MARK)) {
            this.applied.countDown();
        }
    }

    void awaitHeld() throws InterruptedException {
        if (!this.held.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("No script call was sent to the node");
        }
    }

    void letGo() {
        this.released.countDown();
    }

    void awaitApplied() throws InterruptedException {
        if (!this.applied.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The held call was never answered");
        }
    }
}
