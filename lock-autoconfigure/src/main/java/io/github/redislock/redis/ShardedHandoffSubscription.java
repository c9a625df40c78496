package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Sharded pub/sub (Redis 7+) in a Redis Cluster, on the cluster client of the application's Lettuce connection
 * factory (a connection of ours, no client of ours). SSUBSCRIBE goes to the node that owns the channel's slot,
 * so a hand-off message stays on the node of its lock instead of being broadcast to the whole cluster. Lettuce
 * re-subscribes after a reconnect, but not when a slot moves to another node (the server then ends the
 * subscription itself); this class subscribes again in that case.
 */
final class ShardedHandoffSubscription implements HandoffSubscription {

    private static final Log logger = LogFactory.getLog(ShardedHandoffSubscription.class);

    private final RedisClusterClient client;

    private final Consumer<byte[]> listener;

    private final Executor resubscriber;

    private final Set<String> channels = ConcurrentHashMap.newKeySet();

    /** Guarded by {@code this}. */
    private StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;

    private volatile boolean closed;

    private boolean failing;

    ShardedHandoffSubscription(RedisClusterClient client, Consumer<byte[]> listener, Executor resubscriber) {
        this.client = client;
        this.listener = listener;
        this.resubscriber = resubscriber;
    }

    @Override
    public synchronized boolean subscribe(String channel) {
        if (this.channels.contains(channel) && this.connection != null && this.connection.isOpen()) {
            return false;
        }
        try {
            connection().sync().ssubscribe(channel.getBytes(StandardCharsets.UTF_8));
            this.channels.add(channel);
            this.failing = false;
        }
        catch (RuntimeException ex) {
            if (!this.failing) {
                this.failing = true;
                logger.warn("Could not subscribe to lock hand-off messages; waiting locks fall back to timed "
                        + "retries", ex);
            }
        }
        return true;
    }

    private StatefulRedisClusterPubSubConnection<byte[], byte[]> connection() {
        if (this.connection == null || !this.connection.isOpen()) {
            this.channels.clear();
            StatefulRedisClusterPubSubConnection<byte[], byte[]> opened = this.client.connectPubSub(ByteArrayCodec.INSTANCE);
            opened.addListener(new RedisPubSubAdapter<>() {

                @Override
                public void smessage(byte[] channel, byte[] message) {
                    ShardedHandoffSubscription.this.listener.accept(message);
                }

                @Override
                public void sunsubscribed(byte[] channel, long count) {
                    resubscribeIfStillWanted(new String(channel, StandardCharsets.UTF_8));
                }
            });
            this.connection = opened;
        }
        return this.connection;
    }

    /**
     * The server ends a sharded subscription by itself when the channel's slot moves to another node; we never
     * unsubscribe, so every end is that: subscribe again (Lettuce follows the MOVED reply to the new owner).
     */
    private void resubscribeIfStillWanted(String channel) {
        if (this.closed || !this.channels.remove(channel)) {
            return;
        }
        this.resubscriber.execute(() -> {
            if (!this.closed) {
                subscribe(channel);
            }
        });
    }

    @Override
    public synchronized void close() {
        this.closed = true;
        this.channels.clear();
        if (this.connection != null) {
            try {
                this.connection.close();
            }
            catch (RuntimeException ex) {
                logger.debug("Closing the hand-off subscription failed", ex);
            }
            this.connection = null;
        }
    }
}
