package io.github.redislock.redis;

/**
 * The connection on which one client listens for the hand-offs addressed to it. Messages reach the consumer
 * on the thread that read them (the client library's I/O thread, or a subscription thread), which must not
 * block.
 */
interface HandoffSubscription extends AutoCloseable {

    /**
     * Makes sure the channel is listened to, now or (when the subscription is made in the background) a
     * moment later.
     * @return true when it was not listened to before (a message sent until now was not received), false when
     * it already was; never throws: a failure is logged and the next call tries again
     */
    boolean subscribe(String channel);

    @Override
    void close();
}
