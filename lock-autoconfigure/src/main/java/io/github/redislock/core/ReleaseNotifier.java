package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LockException;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;

/**
 * Wakes waiting threads when a lock they wait for is released, instead of letting them poll. All waiters of
 * the JVM share one subscription connection (taken from the application's connection factory); a key's
 * release channel is subscribed while threads wait for it and for a few seconds after the last one left, so
 * a hot key does not pay a SUBSCRIBE and an UNSUBSCRIBE for every contended acquisition.
 * <p>
 * A release wakes exactly one waiter of this JVM: only one can win the lock, so waking more would only send
 * Redis a burst of doomed attempts. The woken waiter moves to the back of the line. Nothing here is
 * trusted for correctness: a lost notification (subscription down, release by expiry, which publishes
 * nothing) only delays a waiter until its bounded wait runs out and it tries again.
 */
final class ReleaseNotifier implements MessageListener, AutoCloseable {

    private static final Log logger = LogFactory.getLog(ReleaseNotifier.class);

    private final RedisConnectionFactory connectionFactory;

    /** How long a channel stays subscribed after its last waiter left. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(3);

    private final Map<String, Line> lines = new ConcurrentHashMap<>();

    private final ScheduledExecutorService scheduler;

    private ScheduledFuture<?> sweeping;

    /** The subscribed connection, guarded by {@code this}. */
    private RedisConnection connection;

    private volatile boolean failing;

    ReleaseNotifier(RedisConnectionFactory connectionFactory, ScheduledExecutorService scheduler) {
        this.connectionFactory = connectionFactory;
        this.scheduler = scheduler;
    }

    /** Registers the current thread as waiting for the key; subscribes to its channel if needed. */
    Waiter register(String key) {
        String channel = KeySlots.releaseChannel(key);
        Waiter waiter = new Waiter(channel);
        synchronized (this) {
            Line line = this.lines.get(channel);
            if (line == null) {
                line = new Line();
                this.lines.put(channel, line);
            }
            line.waiters.addLast(waiter);
            line.idleSince = 0;
            if (!line.subscribed) {
                line.subscribed = subscribe(channel);
            }
            if (this.sweeping == null) {
                long period = LINGER_NANOS / 3;
                this.sweeping = this.scheduler.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.NANOSECONDS);
            }
        }
        return waiter;
    }

    void unregister(Waiter waiter) {
        Line line = this.lines.get(waiter.channel);
        if (line != null && line.waiters.remove(waiter) && line.waiters.isEmpty()) {
            synchronized (this) {
                if (line.waiters.isEmpty()) {
                    line.idleSince = System.nanoTime();
                }
            }
        }
    }

    /** Unsubscribes channels nobody has waited on for a while. */
    synchronized void sweep() {
        long now = System.nanoTime();
        this.lines.entrySet().removeIf((entry) -> {
            Line line = entry.getValue();
            boolean idle = line.waiters.isEmpty() && line.idleSince != 0 && now - line.idleSince > LINGER_NANOS;
            if (idle && line.subscribed) {
                unsubscribe(entry.getKey());
            }
            return idle;
        });
    }

    /** Called on the client's I/O thread for each release: wakes the first waiter not already woken. */
    @Override
    public void onMessage(Message message, byte[] pattern) {
        Line line = this.lines.get(new String(message.getChannel(), StandardCharsets.UTF_8));
        if (line == null) {
            return;
        }
        for (Waiter waiter : line.waiters) {
            if (waiter.signal()) {
                // Next release goes to someone else first.
                if (line.waiters.remove(waiter)) {
                    line.waiters.addLast(waiter);
                }
                return;
            }
        }
    }

    /** Whether the channel is now subscribed. */
    private boolean subscribe(String channel) {
        byte[] name = channel.getBytes(StandardCharsets.UTF_8);
        try {
            Subscription subscription = (this.connection != null) ? this.connection.getSubscription() : null;
            if (subscription != null && subscription.isAlive()) {
                subscription.subscribe(name);
            }
            else {
                closeConnection();
                this.connection = this.connectionFactory.getConnection();
                this.connection.subscribe(this, name);
            }
            this.failing = false;
            return true;
        }
        catch (RuntimeException ex) {
            // Waiters still retry within their bounded waits; only the wake-up is lost. The next waiter
            // tries to subscribe again.
            closeConnection();
            for (Line line : this.lines.values()) {
                line.subscribed = false;
            }
            if (!this.failing) {
                this.failing = true;
                logger.warn("Could not subscribe to lock release notifications; waiting locks fall back to "
                        + "timed retries", ex);
            }
            return false;
        }
    }

    private void unsubscribe(String channel) {
        Subscription subscription = (this.connection != null) ? this.connection.getSubscription() : null;
        if (subscription == null || !subscription.isAlive()) {
            return;
        }
        try {
            subscription.unsubscribe(channel.getBytes(StandardCharsets.UTF_8));
        }
        catch (RuntimeException ex) {
            closeConnection();
        }
    }

    private void closeConnection() {
        if (this.connection != null) {
            try {
                Subscription subscription = this.connection.getSubscription();
                // A subscription that ended by itself (all channels unsubscribed) already gave its
                // connection back; closing again only makes Lettuce warn.
                if (subscription == null || subscription.isAlive()) {
                    this.connection.close();
                }
            }
            catch (RuntimeException ex) {
                logger.debug("Closing the release subscription failed", ex);
            }
            this.connection = null;
        }
    }

    @Override
    public synchronized void close() {
        if (this.sweeping != null) {
            this.sweeping.cancel(false);
        }
        this.lines.clear();
        closeConnection();
    }

    /** The waiters of one channel. */
    private static final class Line {

        final ConcurrentLinkedDeque<Waiter> waiters = new ConcurrentLinkedDeque<>();

        /** When the last waiter left, or 0 while someone waits. Guarded by the notifier. */
        long idleSince;

        /** Guarded by the notifier. */
        boolean subscribed;
    }

    /** One waiting thread. */
    static final class Waiter {

        private final String channel;

        private final Thread thread = Thread.currentThread();

        private volatile boolean signaled;

        Waiter(String channel) {
            this.channel = channel;
        }

        boolean signal() {
            if (this.signaled) {
                return false;
            }
            this.signaled = true;
            LockSupport.unpark(this.thread);
            return true;
        }

        /** Parks until woken by a release or until the time is up; consumes the wake-up. */
        void await(long nanos, String key) {
            long deadline = System.nanoTime() + nanos;
            while (!this.signaled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new LockException("Interrupted while waiting for lock '" + key + "'");
                }
            }
            this.signaled = false;
        }
    }
}
