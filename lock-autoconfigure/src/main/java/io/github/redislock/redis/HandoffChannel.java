package io.github.redislock.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.lettuce.core.cluster.RedisClusterClient;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.redis.support.KeySlots;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The channel on which releases tell this application that a lock was handed to it: names, the publish
 * command the release script must use, and the one subscription, opened on first need.
 * <ul>
 * <li>A standalone server: one channel per application, {@code <key prefix>~lock~handoff:<client id>}.</li>
 * <li>Redis Cluster: one channel per application and hash slot, named in the lock key's slot so that the
 * release script may publish on it ({@code <key prefix>~lock~{<t>}handoff:<client id>}).</li>
 * <li>Redis Cluster 7 or later on Lettuce: those channels are sharded ({@code SSUBSCRIBE}/{@code SPUBLISH}),
 * so a message stays on its lock's node. Spring Data Redis has no sharded subscriptions; other client
 * libraries subscribe the plain way.</li>
 * </ul>
 * Plain channels are listened to through a {@link PlainHandoffSubscription} (Spring Data Redis's message
 * listener container), which never blocks the waiting thread, also on Jedis.
 * <p>
 * The names begin with the key prefix, so that an ACL can give each application its own channels. A message is
 * the lock key; anyone allowed to publish on the channel can send one, so it only ever makes a waiter look at
 * Redis (see {@link Waiting#handedOver}). It reaches the listener on the thread that read it (the client library's I/O
 * thread, or the container's subscription thread), which must not block. Messages only make waiting fast: a
 * waiter that misses one finds the hand-off at its next timed look at Redis, or, when it was missed because
 * the channel was not yet (or no longer) subscribed, as soon as the server confirms the subscription.
 */
final class HandoffChannel implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(HandoffChannel.class);

    private final RedisConnectionFactory connectionFactory;

    private final LockCommands redis;

    private final boolean clustered;

    /** Whether the factory is Lettuce's, whose cluster client can subscribe sharded. */
    private final boolean lettuce;

    private final String keyPrefix;

    private final String clientId;

    private final Executor executor;

    private final Consumer<String> listener;

    private final Consumer<Predicate<String>> subscribed;

    /** Whether messages go by sharded pub/sub; {@code null} until first needed. */
    private volatile @Nullable Boolean sharded;

    /** Guarded by {@code this}. */
    private @Nullable HandoffSubscription subscription;

    /** Guarded by {@code this}. */
    private boolean closed;

    /**
     * @param executor where a sharded subscription is renewed after its slot moved
     * @param listener told the lock key of every hand-off to this application
     * @param subscribed told, when a plain channel's subscription is confirmed (first or again), which lock
     * keys it carries: a hand-off of one of them sent before may have been missed
     */
    HandoffChannel(RedisConnectionFactory connectionFactory, LockCommands redis, boolean clustered, boolean lettuce,
            String keyPrefix, String clientId, Executor executor, Consumer<String> listener,
            Consumer<Predicate<String>> subscribed) {
        this.connectionFactory = connectionFactory;
        this.redis = redis;
        this.clustered = clustered;
        this.lettuce = lettuce;
        this.keyPrefix = keyPrefix;
        this.clientId = clientId;
        this.executor = executor;
        this.listener = listener;
        this.subscribed = subscribed;
    }

    /**
     * How a release tells this application that it handed it the key, as its queue entry records it:
     * {@code <PUBLISH or SPUBLISH>:<channel>}. Each application says how it listens, so applications on
     * different client libraries (sharded or plain) can wait for the same key.
     */
    String address(String key) {
        return (sharded() ? "SPUBLISH:" : "PUBLISH:") + channel(key);
    }

    /** The ACL channel pattern that covers every hand-off channel of applications with this key prefix. */
    String aclPattern() {
        return "&" + this.keyPrefix + KeySlots.MARKER + "*";
    }

    /** This application's channel for the key's slot. */
    private String channel(String key) {
        return KeySlots.handoffChannelPrefix(this.keyPrefix, key, this.clustered) + this.clientId;
    }

    /**
     * Makes sure this application hears hand-offs of the key. Never throws: without a subscription waiters
     * fall back to timed looks at Redis.
     * @return true when the channel was not listened to until now, so a hand-off sent before was missed
     */
    boolean listen(String key) {
        HandoffSubscription subscription;
        synchronized (this) {
            if (this.closed) {
                return true;
            }
            if (this.subscription == null) {
                try {
                    this.subscription = open();
                }
                catch (RuntimeException ex) {
                    logger.warn("Could not open the lock hand-off subscription; waiting locks fall back to timed "
                            + "retries", ex);
                    return true;
                }
            }
            subscription = this.subscription;
        }
        return subscription.subscribe(channel(key));
    }

    private HandoffSubscription open() {
        Consumer<byte[]> messages = (message) -> this.listener.accept(new String(message, StandardCharsets.UTF_8));
        if (sharded()) {
            RedisClusterClient client = (RedisClusterClient) ((LettuceConnectionFactory) this.connectionFactory)
                .getRequiredNativeClient();
            return new ShardedHandoffSubscription(client, messages, this.executor);
        }
        return new PlainHandoffSubscription(this.connectionFactory, messages,
                (channel) -> this.subscribed.accept((key) -> channel(key).equals(channel)));
    }

    /**
     * Sharded in a cluster of Redis 7 or later, on Lettuce. Decided once, on first need, by asking the
     * servers for their version.
     */
    private boolean sharded() {
        Boolean sharded = this.sharded;
        if (sharded == null) {
            // Spring Data Redis has no sharded subscriptions; only Lettuce's own cluster client does.
            sharded = this.clustered && this.lettuce && RedisVersion.atLeast(this.redis.serverVersion(), 7, 0);
            this.sharded = sharded;
        }
        return sharded;
    }

    /** Stops listening for good: later waiters look at Redis on their timer. */
    @Override
    public synchronized void close() {
        this.closed = true;
        if (this.subscription != null) {
            this.subscription.close();
        }
    }
}
