package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Plain pub/sub through a {@link RedisMessageListenerContainer} on the application's connection factory: any
 * client library (Lettuce, whose subscribe returns at once, and Jedis, whose subscribe blocks the calling
 * thread until unsubscribed), standalone or cluster. One container and one subscription connection per client,
 * created and started on first need.
 * <ul>
 * <li>{@link #subscribe} never blocks on Redis: it hands the channel to a thread of ours, which adds it to the
 * container, and returns. The channel is listened to once the server confirms the subscription, a moment
 * later; the confirmation is reported to {@code subscribed}, so that waiters look at Redis then for a hand-off
 * sent in that gap. Until then (or if the confirmation never comes) their timed looks find it.</li>
 * <li>A subscription connection that dies comes back: Lettuce reconnects and re-subscribes by itself; on
 * Jedis the container subscribes again after a back-off (100 ms, doubling up to 5 s, for as long as it takes).
 * Every re-subscription is confirmed to {@code subscribed} again. Meanwhile waiters fall back to timed looks. A
 * subscription the container gave up (it fails for another reason than the connection) is started again by
 * the next {@link #subscribe}.</li>
 * <li>Messages and confirmations are passed on directly on the thread that read them (Lettuce's I/O thread,
 * or the container's subscription thread on Jedis), so the consumers must not block.</li>
 * </ul>
 * Two daemon threads, never one per channel (see {@link HandoffContainer}, which owns them and the container):
 * the container's (held by a Jedis subscription) and one that gives it channels; idle, they end after ten
 * seconds, and all end once {@link #close closed} (a Jedis subscription thread as soon as the server answers
 * the unsubscribe). This class owns the channels asked for and their registration.
 */
final class PlainHandoffSubscription implements HandoffSubscription {

    private static final Log logger = LogFactory.getLog(PlainHandoffSubscription.class);

    private final Listener listener;

    /** Channels asked for. Guarded by {@code this}. */
    private final Set<String> channels = new HashSet<>();

    /** Channels to give the container next. Guarded by {@code this}. */
    private final Set<String> pending = new HashSet<>();

    /** Whether a task giving {@link #pending} to the container is queued or running. Guarded by {@code this}. */
    private boolean registering;

    /** Guarded by {@code this}. */
    private boolean closed;

    /** The container and its threads. Guarded by {@code this}. */
    private final HandoffContainer container;

    private volatile boolean failing;

    /**
     * @param messages told the body of every message, on the thread that read it
     * @param subscribed told every channel whose subscription the server confirmed (again), on that thread too
     */
    PlainHandoffSubscription(RedisConnectionFactory connectionFactory, Consumer<byte[]> messages,
            Consumer<String> subscribed) {
        this.container = new HandoffContainer(connectionFactory);
        this.listener = new Listener(messages, subscribed);
    }

    /**
     * @return true the first time the channel is asked for, and while the container is not (yet, or no longer)
     * listening; false once it listens
     */
    @Override
    public boolean subscribe(String channel) {
        synchronized (this) {
            if (this.closed) {
                return true;
            }
            if (this.channels.contains(channel) && this.container.isListening()) {
                return false;
            }
            this.channels.add(channel);
            // Not listening: ask again. The container keeps what it was given, and giving it the same channel
            // again starts listening if it had given up.
            this.pending.add(channel);
            if (this.registering) {
                return true;
            }
            this.registering = true;
            try {
                this.container.registrar().execute(this::register);
            }
            catch (RuntimeException ex) {
                this.registering = false;
                warnOnce(ex);
            }
        }
        return true;
    }

    /** On a thread of ours: gives the pending channels to the container, which may wait for Redis. */
    private void register() {
        while (true) {
            RedisMessageListenerContainer container;
            List<ChannelTopic> topics = new ArrayList<>();
            synchronized (this) {
                if (this.closed || this.pending.isEmpty()) {
                    this.registering = false;
                    return;
                }
                this.pending.forEach((channel) -> topics.add(new ChannelTopic(channel)));
                this.pending.clear();
                container = this.container.listenerContainer();
            }
            try {
                // Started with no channels it opens no connection; adding them subscribes (on Jedis on the
                // container's subscription thread) and waits for the server's confirmation, at most
                // HandoffContainer.REGISTRATION_WAIT_MILLIS for the first.
                container.start();
                container.addMessageListener(this.listener, topics);
                this.failing = false;
            }
            catch (RuntimeException ex) {
                // The channels stay with the container: a later subscription or recovery includes them, and the
                // next subscribe() tries again while it does not listen. Waiters look at Redis on their timer.
                warnOnce(ex);
            }
        }
    }

    private void warnOnce(RuntimeException ex) {
        if (!this.failing) {
            this.failing = true;
            logger.warn("Could not subscribe to lock hand-off messages; waiting locks fall back to timed retries "
                    + "until the subscription is back", ex);
        }
        else {
            logger.debug("Could not subscribe to lock hand-off messages", ex);
        }
    }

    /**
     * Unsubscribes and stops the threads. Waits at most about three times
     * {@value HandoffContainer#REGISTRATION_WAIT_MILLIS} ms for Redis (a registration on its way, a subscription
     * being set up, the unsubscribe); a Jedis thread still waiting for a stalled server ends with its connection.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (this.closed) {
                return;
            }
            this.closed = true;
            this.pending.clear();
        }
        // Nothing is created once closed: the container and its threads can be stopped outside the lock.
        this.container.close();
    }

    /** The container's listener: messages and subscription confirmations, passed on as they come. */
    private static final class Listener implements MessageListener, SubscriptionListener {

        private final Consumer<byte[]> messages;

        private final Consumer<String> subscribed;

        Listener(Consumer<byte[]> messages, Consumer<String> subscribed) {
            this.messages = messages;
            this.subscribed = subscribed;
        }

        @Override
        public void onMessage(Message message, byte @Nullable [] pattern) {
            this.messages.accept(message.getBody());
        }

        @Override
        public void onChannelSubscribed(byte[] channel, long count) {
            this.subscribed.accept(new String(channel, StandardCharsets.UTF_8));
        }
    }
}
