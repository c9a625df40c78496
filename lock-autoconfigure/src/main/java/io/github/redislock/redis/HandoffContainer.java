package io.github.redislock.redis;

import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import io.github.redislock.engine.DaemonThreads;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The {@link RedisMessageListenerContainer} of a {@link PlainHandoffSubscription} with its two daemon threads,
 * each created on first need: the container's subscription thread (a Jedis subscription holds it until it
 * fails, then schedules its recovery on it; on Lettuce it only runs recoveries) and the registrar, which gives
 * the container channels (adding them may wait for Redis). Idle, both threads end after ten seconds. Guarded by
 * the subscription's lock, which also decides that nothing is created after {@link #close}.
 */
final class HandoffContainer {

    private static final Log logger = LogFactory.getLog(HandoffContainer.class);

    /** How long the container may wait for Redis to confirm a subscription or an unsubscribe (close). */
    static final long REGISTRATION_WAIT_MILLIS = 1000;

    private final RedisConnectionFactory connectionFactory;

    private @Nullable RedisMessageListenerContainer container;

    private @Nullable ScheduledThreadPoolExecutor containerThread;

    private @Nullable ThreadPoolExecutor registrar;

    HandoffContainer(RedisConnectionFactory connectionFactory) {
        this.connectionFactory = connectionFactory;
    }

    /** The container, created (not started) on first need. */
    RedisMessageListenerContainer listenerContainer() {
        if (this.container == null) {
            RedisMessageListenerContainer container = new RedisMessageListenerContainer();
            container.setConnectionFactory(this.connectionFactory);
            container.setBeanName("redis-lock-handoff");
            container.setSubscriptionExecutor(containerThread());
            // The listener only wakes a thread or queues a task: no need for a thread per message.
            container.setTaskExecutor(Runnable::run);
            container.setMaxSubscriptionRegistrationWaitingTime(REGISTRATION_WAIT_MILLIS);
            ExponentialBackOff backOff = new ExponentialBackOff(100, 2);
            backOff.setMaxInterval(5000);
            container.setRecoveryBackoff(backOff);
            container.afterPropertiesSet();
            this.container = container;
        }
        return this.container;
    }

    /** Whether the container exists and listens. */
    boolean isListening() {
        RedisMessageListenerContainer container = this.container;
        return container != null && container.isListening();
    }

    private ScheduledThreadPoolExecutor containerThread() {
        if (this.containerThread == null) {
            // One thread: a Jedis subscription holds it until it fails, then schedules its recovery on it. On
            // Lettuce it is only needed for recoveries and ends when idle.
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1,
                    DaemonThreads.named("redis-lock-handoff"));
            executor.setKeepAliveTime(10, TimeUnit.SECONDS);
            executor.allowCoreThreadTimeOut(true);
            executor.setRemoveOnCancelPolicy(true);
            this.containerThread = executor;
        }
        return this.containerThread;
    }

    /** The thread that gives channels to the container, created on first need. */
    Executor registrar() {
        if (this.registrar == null) {
            ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                    DaemonThreads.named("redis-lock-handoff-registration"));
            executor.allowCoreThreadTimeOut(true);
            this.registrar = executor;
        }
        return this.registrar;
    }

    /**
     * Lets a registration on its way end, unsubscribes and stops the threads. Waits at most about three times
     * {@value #REGISTRATION_WAIT_MILLIS} ms for Redis; a Jedis thread still waiting for a stalled server ends
     * with its connection. Called once, after the subscription closed (so nothing is created any more), and
     * outside its lock.
     */
    void close() {
        if (this.registrar != null) {
            // A registration on its way could start the container again after it stopped: let it end first.
            this.registrar.shutdownNow();
            awaitTermination(this.registrar);
        }
        if (this.container != null) {
            try {
                this.container.destroy();
            }
            catch (Exception ex) {
                logger.debug("Closing the hand-off subscription failed", ex);
            }
        }
        if (this.containerThread != null) {
            // Drops a recovery scheduled meanwhile: none may subscribe again after the container stopped.
            this.containerThread.shutdownNow();
        }
    }

    private static void awaitTermination(ThreadPoolExecutor executor) {
        try {
            executor.awaitTermination(REGISTRATION_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
