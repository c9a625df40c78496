package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ObjLongConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;

/**
 * This client's side of lock hand-offs. Threads of one client that wait for the same key stand in one local
 * line; the client as a whole holds one entry in the key's Redis queue, and a release hands the lock to the
 * client at the head of that queue by storing the client's id as the owner and publishing the new fencing
 * token on the client's own hand-off channel. This receiver gets that message on the shared subscription
 * connection and passes the lock to the first thread of the line. So a release costs Redis one script and
 * one message, and no thread anywhere sends an attempt that is bound to fail.
 * <p>
 * Only the first thread of a line talks to Redis while waiting: it refreshes the client's queue entry and
 * looks for a lock that expired (an expiry hands nothing on) or a hand-off whose message was lost, no later
 * than the holder's remaining lease and never less often than the client's retry bound. Messages are
 * therefore never needed for correctness, only for speed. Each hand-off carries a fencing token, which
 * only grows per key; a token not above the last one given out is a duplicate and is ignored.
 */
final class HandoffReceiver implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(HandoffReceiver.class);

    /** How long an empty line is kept, remembering the last fencing token handed out for its key. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ScheduledExecutorService scheduler;

    private final String clientId;

    private final boolean clustered;

    /** Told of a hand-off that no thread here takes: key and fencing token. Runs on the I/O thread. */
    private final ObjLongConsumer<String> unclaimed;

    private final Map<String, Line> lines = new ConcurrentHashMap<>();

    /** Opens the subscription (given where messages go), on first need. */
    private final Function<Consumer<byte[]>, HandoffSubscription> opener;

    /** Guarded by {@code this}. */
    private ScheduledFuture<?> sweeping;

    /** Guarded by {@code this}. */
    private HandoffSubscription subscription;

    HandoffReceiver(Function<Consumer<byte[]>, HandoffSubscription> opener, ScheduledExecutorService scheduler,
            String clientId, boolean clustered, ObjLongConsumer<String> unclaimed) {
        this.opener = opener;
        this.scheduler = scheduler;
        this.clientId = clientId;
        this.clustered = clustered;
        this.unclaimed = unclaimed;
    }

    /** The key's line if threads of this client wait in it. */
    Line waitingLine(String key) {
        Line line = this.lines.get(key);
        return (line != null && line.hasWaiting()) ? line : null;
    }

    /** The key's line, made if needed. */
    Line line(String key) {
        return this.lines.computeIfAbsent(key, (k) -> new Line());
    }

    /**
     * Puts the current thread at the back of the key's line and makes sure this client listens on the key's
     * hand-off channel.
     * @return the waiter; {@link Waiter#subscribedNow} tells that the channel was only just subscribed, so a
     * hand-off may have been published before anyone listened
     */
    Waiter join(String key) {
        Waiter waiter;
        while (true) {
            Line line = line(key);
            synchronized (line) {
                if (!line.retired) {
                    waiter = new Waiter(line);
                    line.waiters.addLast(waiter);
                    line.idleSince = 0;
                    break;
                }
            }
            // Swept away just now: take the line that replaces it.
        }
        waiter.subscribedNow = subscribe(KeySlots.handoffChannelPrefix(key, this.clustered) + this.clientId);
        return waiter;
    }

    /**
     * A hand-off to this client of the key with the fencing token, seen in a message or found by an attempt:
     * gives it to the first waiting thread of the line.
     * @return true when no thread took it and it is not a duplicate, so the caller must use or pass it on
     */
    boolean grant(String key, long fence, boolean mayKeep) {
        Line line = mayKeep ? line(key) : this.lines.get(key);
        if (line != null) {
            synchronized (line) {
                if (fence <= line.lastGrantedFence) {
                    return false;
                }
                line.lastGrantedFence = fence;
                for (Waiter waiter : line.waiters) {
                    if (waiter.grant(fence)) {
                        line.remove(waiter);
                        return false;
                    }
                }
                if (line.waiters.isEmpty() && line.idleSince == 0) {
                    line.idleSince = System.nanoTime();
                }
            }
        }
        return true;
    }

    /** Called on the client's I/O thread for each hand-off message: '<fence>:<key>'. */
    void onMessage(byte[] message) {
        String body = new String(message, StandardCharsets.UTF_8);
        int colon = body.indexOf(':');
        long fence;
        try {
            fence = Long.parseLong(body, 0, colon, 10);
        }
        catch (RuntimeException ex) {
            logger.debug("Ignoring a malformed hand-off message: " + body);
            return;
        }
        String key = body.substring(colon + 1);
        if (grant(key, fence, false)) {
            this.unclaimed.accept(key, fence);
        }
    }

    /** Whether this client's entry in the key's Redis queue should go with a release: nobody here waits. */
    boolean leaving(String key) {
        Line line = this.lines.get(key);
        if (line == null) {
            return false;
        }
        synchronized (line) {
            if (line.queued && line.waiters.isEmpty()) {
                line.queued = false;
                return true;
            }
            return false;
        }
    }

    /** Drops lines nobody has waited in for a while. */
    void sweep() {
        long now = System.nanoTime();
        this.lines.entrySet().removeIf((entry) -> {
            Line line = entry.getValue();
            synchronized (line) {
                line.retired = line.waiters.isEmpty() && line.idleSince != 0 && now - line.idleSince > LINGER_NANOS;
                return line.retired;
            }
        });
    }

    /** Whether the channel had to be subscribed now (it was not before). */
    private boolean subscribe(String channel) {
        HandoffSubscription subscription;
        synchronized (this) {
            if (this.sweeping == null) {
                long period = LINGER_NANOS / 2;
                this.sweeping = this.scheduler.scheduleWithFixedDelay(this::sweep, period, period,
                        TimeUnit.NANOSECONDS);
            }
            if (this.subscription == null) {
                try {
                    this.subscription = this.opener.apply(this::onMessage);
                }
                catch (RuntimeException ex) {
                    logger.warn("Could not open the lock hand-off subscription; waiting locks fall back to timed "
                            + "retries", ex);
                    return true;
                }
            }
            subscription = this.subscription;
        }
        return subscription.subscribe(channel);
    }

    @Override
    public synchronized void close() {
        if (this.sweeping != null) {
            this.sweeping.cancel(false);
        }
        if (this.subscription != null) {
            this.subscription.close();
        }
    }

    /** The threads of this client waiting for one key, first come first served. Guarded by itself. */
    static final class Line {

        final ArrayDeque<Waiter> waiters = new ArrayDeque<>();

        /** Removed from the receiver: nobody may join it any more. */
        boolean retired;

        /** The highest fencing token handed to this client for the key. */
        long lastGrantedFence;

        /** When the line emptied, or 0 while someone waits. */
        long idleSince;

        /** Whether this client has (most likely) an entry in the key's Redis queue. */
        boolean queued;

        /** The lease the queue entry asks for. */
        long queuedLeaseMillis;

        /**
         * When the last attempt that found the key taken was sent: a hand-off seen later happened after it,
         * so its lease started after this instant.
         */
        long lastTakenSentAt;

        /** When the first waiter should next try Redis (or 0: at once). */
        long nextTryAt;

        synchronized boolean hasWaiting() {
            return !this.waiters.isEmpty();
        }

        synchronized boolean isHead(Waiter waiter) {
            return this.waiters.peekFirst() == waiter;
        }

        /** An attempt by a waiter of this line found the key taken, and queued this client. */
        synchronized void taken(long sentAt, long leaseMillis, long nextTryAt) {
            this.queued = true;
            this.queuedLeaseMillis = leaseMillis;
            this.lastTakenSentAt = sentAt;
            this.nextTryAt = nextTryAt;
        }

        synchronized void tryAgainAt(long nextTryAt) {
            this.nextTryAt = nextTryAt;
        }

        /** Takes a waiter out of the line; the new first one takes over refreshing the queue entry. */
        synchronized void remove(Waiter waiter) {
            if (this.waiters.remove(waiter)) {
                if (this.waiters.isEmpty()) {
                    this.idleSince = System.nanoTime();
                }
                else {
                    LockSupport.unpark(this.waiters.peekFirst().thread);
                }
            }
        }
    }

    /** One waiting thread. */
    static final class Waiter {

        private static final int WAITING = 0;

        private static final int GRANTED = 1;

        private static final int CANCELLED = 2;

        final Line line;

        final Thread thread = Thread.currentThread();

        private final AtomicInteger state = new AtomicInteger(WAITING);

        private volatile long fence;

        boolean subscribedNow;

        Waiter(Line line) {
            this.line = line;
        }

        boolean grant(long fence) {
            if (!this.state.compareAndSet(WAITING, GRANTED)) {
                return false;
            }
            this.fence = fence;
            LockSupport.unpark(this.thread);
            return true;
        }

        boolean isGranted() {
            return this.state.get() == GRANTED;
        }

        /** The fencing token of the hand-off this waiter got. */
        long fence() {
            return this.fence;
        }

        /** Stops waiting; false when a hand-off got here first (the lock is then this waiter's). */
        boolean cancel() {
            if (this.state.compareAndSet(WAITING, CANCELLED)) {
                this.line.remove(this);
                return true;
            }
            return false;
        }

        /** Parks until granted, unparked or the time is up. */
        void park(long nanos, String key) {
            if (this.state.get() == WAITING && nanos > 0) {
                LockSupport.parkNanos(this, nanos);
            }
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new LockException("Interrupted while waiting for lock '" + key + "'");
            }
        }
    }
}
