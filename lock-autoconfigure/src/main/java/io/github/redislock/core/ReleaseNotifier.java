package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
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
 * release channel is subscribed while at least one thread waits for it.
 * <p>
 * A release wakes exactly one waiter of this JVM: only one can win the lock, so waking more would only send
 * Redis a burst of doomed attempts. The woken waiter moves to the back of the line. Nothing here is
 * trusted for correctness: a lost notification (subscription down, release by expiry, which publishes
 * nothing) only delays a waiter until its bounded wait runs out and it tries again.
 */
final class ReleaseNotifier implements MessageListener, AutoCloseable {

    private static final Log logger = LogFactory.getLog(ReleaseNotifier.class);

    private final RedisConnectionFactory connectionFactory;

    private final Map<String, ConcurrentLinkedDeque<Waiter>> waiters = new ConcurrentHashMap<>();

    /** The subscribed connection, guarded by {@code this}. */
    private RedisConnection connection;

    private volatile boolean failing;

    ReleaseNotifier(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
    }

    /** Registers the current thread as waiting for the key; subscribes to its channel if it is the first. */
    Waiter register(String key) {
        String channel = KeySlots.releaseChannel(key);
        Waiter waiter = new Waiter(channel);
        synchronized (this) {
            ConcurrentLinkedDeque<Waiter> line = this.waiters.computeIfAbsent(channel, (c) -> new ConcurrentLinkedDeque<>());
            line.addLast(waiter);
            if (line.size() == 1) {
                subscribe(channel);
            }
        }
        return waiter;
    }

    void unregister(Waiter waiter) {
        synchronized (this) {
            ConcurrentLinkedDeque<Waiter> line = this.waiters.get(waiter.channel);
            if (line != null && line.remove(waiter) && line.isEmpty()) {
                this.waiters.remove(waiter.channel);
                unsubscribe(waiter.channel);
            }
        }
    }

    /** Called on the client's I/O thread for each release: wakes the first waiter not already woken. */
    @Override
    public void onMessage(Message message, byte[] pattern) {
        ConcurrentLinkedDeque<Waiter> line = this.waiters.get(new String(message.getChannel(), StandardCharsets.UTF_8));
        if (line == null) {
            return;
        }
        for (Waiter waiter : line) {
            if (waiter.signal()) {
                // Next release goes to someone else first.
                if (line.remove(waiter)) {
                    line.addLast(waiter);
                }
                return;
            }
        }
    }

    private void subscribe(String channel) {
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
        }
        catch (RuntimeException ex) {
            // Waiters still retry within their bounded waits; only the wake-up is lost.
            closeConnection();
            if (!this.failing) {
                this.failing = true;
                logger.warn("Could not subscribe to lock release notifications; waiting locks fall back to "
                        + "timed retries", ex);
            }
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
                this.connection.close();
            }
            catch (RuntimeException ex) {
                logger.debug("Closing the release subscription failed", ex);
            }
            this.connection = null;
        }
    }

    @Override
    public synchronized void close() {
        this.waiters.clear();
        closeConnection();
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
