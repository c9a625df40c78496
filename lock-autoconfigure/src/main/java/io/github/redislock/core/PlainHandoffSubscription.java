package io.github.redislock.core;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;

/**
 * Plain pub/sub through the application's connection factory (any client library, standalone or cluster):
 * one subscription connection, opened on first need and opened again when it died.
 */
final class PlainHandoffSubscription implements HandoffSubscription {

    private static final Log logger = LogFactory.getLog(PlainHandoffSubscription.class);

    private final RedisConnectionFactory connectionFactory;

    private final Consumer<byte[]> listener;

    /** Channels subscribed on {@link #connection}. Guarded by {@code this}. */
    private final Set<String> channels = new HashSet<>();

    /** Guarded by {@code this}. */
    private RedisConnection connection;

    private boolean failing;

    PlainHandoffSubscription(RedisConnectionFactory connectionFactory, Consumer<byte[]> listener) {
        this.connectionFactory = connectionFactory;
        this.listener = listener;
    }

    @Override
    public synchronized boolean subscribe(String channel) {
        Subscription subscription = (this.connection != null) ? this.connection.getSubscription() : null;
        boolean alive = subscription != null && subscription.isAlive();
        if (alive && this.channels.contains(channel)) {
            return false;
        }
        byte[] name = channel.getBytes(StandardCharsets.UTF_8);
        try {
            if (alive) {
                subscription.subscribe(name);
            }
            else {
                closeConnection();
                this.connection = this.connectionFactory.getConnection();
                this.connection.subscribe((message, pattern) -> this.listener.accept(message.getBody()), name);
            }
            this.channels.add(channel);
            this.failing = false;
        }
        catch (RuntimeException ex) {
            // Waiters still find hand-offs by their bounded retries; only the speed is lost. The next waiter
            // tries to subscribe again.
            closeConnection();
            if (!this.failing) {
                this.failing = true;
                logger.warn("Could not subscribe to lock hand-off messages; waiting locks fall back to timed "
                        + "retries", ex);
            }
        }
        return true;
    }

    private void closeConnection() {
        this.channels.clear();
        if (this.connection != null) {
            try {
                Subscription subscription = this.connection.getSubscription();
                // A subscription that ended by itself already gave its connection back; closing again only
                // makes Lettuce warn.
                if (subscription == null || subscription.isAlive()) {
                    this.connection.close();
                }
            }
            catch (RuntimeException ex) {
                logger.debug("Closing the hand-off subscription failed", ex);
            }
            this.connection = null;
        }
    }

    @Override
    public synchronized void close() {
        closeConnection();
    }
}
