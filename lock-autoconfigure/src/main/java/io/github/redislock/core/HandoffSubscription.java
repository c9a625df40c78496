package io.github.redislock.core;

/**
 * The connection on which one client listens for the hand-offs addressed to it. Messages reach the consumer
 * on the client library's I/O thread, which must not block.
 */
interface HandoffSubscription extends AutoCloseable {

    /**
     * Makes sure the channel is listened to.
     * @return true when it was not before (a message sent until now was not received), false when it already
     * was; never throws: a failure is logged and the next call tries again
     */
    boolean subscribe(String channel);

    @Override
    void close();
}
