package io.github.redislock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockHandle;
import io.github.redislock.support.TestConnections;
import io.github.redislock.testsupport.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/** Waiters are woken by releases (pub/sub), one per JVM per release, and fall back to timed retries. */
class NotifiedWaitingTest {

    private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(20);

    private RedisServer redis;

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<RedisLockClient> clients = new ArrayList<>();

    @BeforeEach
    void startRedis() {
        this.redis = RedisServer.start();
    }

    @AfterEach
    void stopRedis() {
        this.clients.forEach(RedisLockClient::close);
        this.factories.forEach(LettuceConnectionFactory::destroy);
        this.redis.close();
    }

    private RedisLockClient client() {
        LettuceConnectionFactory factory = TestConnections.lettuce(this.redis, Duration.ofSeconds(5));
        this.factories.add(factory);
        RedisLockClient client = new RedisLockClient(factory, "", Duration.ofSeconds(30), LockLossListener.NONE, null);
        // Timed retries happen only when the holder's lease would run out: on a loaded machine the default
        // one-second safety retry could otherwise be mistaken for a notification, or add attempts.
        client.maxUnnotifiedWait(Duration.ofSeconds(60));
        this.clients.add(client);
        return client;
    }

    private static Thread waiterThread(RedisLockClient client, String key, CompletableFuture<Long> acquiredAt,
            List<LockHandle> handles) {
        Thread thread = new Thread(() -> {
            try {
                LockHandle handle = client.acquire(List.of(key), LONG_WAIT, 30_000);
                long now = System.nanoTime();
                synchronized (handles) {
                    handles.add(handle);
                }
                acquiredAt.complete(now);
            }
            catch (Throwable ex) {
                acquiredAt.completeExceptionally(ex);
            }
        });
        thread.start();
        return thread;
    }

    @Test
    void releaseWakesTheWaiterAtOnceRatherThanAtItsTimedRetry() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        LockHandle holder = holderClient.acquire(List.of("hot"), 0, 30_000);
        CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        Thread waiter = waiterThread(waiterClient, "hot", acquiredAt, handles);
        awaitParkedForNotification(waiter);
        // The waiter has just parked for up to a second (its timed retry); only a notification wakes it sooner.
        long released = System.nanoTime();
        holder.close();
        long latency = acquiredAt.get(10, TimeUnit.SECONDS) - released;
        assertThat(Duration.ofNanos(latency)).isLessThan(Duration.ofMillis(300));
        handles.forEach(LockHandle::close);
    }

    @Test
    void oneReleaseWakesOneWaiterPerJvm() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        LockHandle holder = holderClient.acquire(List.of("hot"), 0, 30_000);
        List<CompletableFuture<Long>> acquired = new ArrayList<>();
        List<Thread> waiters = new ArrayList<>();
        List<LockHandle> handles = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            CompletableFuture<Long> future = new CompletableFuture<>();
            acquired.add(future);
            waiters.add(waiterThread(waiterClient, "hot", future, handles));
        }
        waiters.forEach(NotifiedWaitingTest::awaitParkedForNotification);
        this.redis.command("CONFIG", "RESETSTAT");
        holder.close();
        CompletableFuture.anyOf(acquired.toArray(new CompletableFuture[0])).get(10, TimeUnit.SECONDS);
        long scriptCalls = scriptCalls();
        // The release itself and one acquisition attempt: the other seven stay asleep.
        assertThat(scriptCalls).as((String) this.redis.command("INFO", "commandstats")).isEqualTo(2);
        assertThat(acquired.stream().filter(CompletableFuture::isDone).count()).isEqualTo(1);
        // Each further release hands the lock to the next waiter.
        for (int i = 1; i < 8; i++) {
            LockHandle current;
            synchronized (handles) {
                current = handles.get(handles.size() - 1);
            }
            current.close();
            int expected = i + 1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (acquired.stream().filter(CompletableFuture::isDone).count() < expected) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.onSpinWait();
            }
        }
        synchronized (handles) {
            handles.get(handles.size() - 1).close();
        }
    }

    @Test
    void channelIsSubscribedOnlyWhileSomeoneWaitsAndShortlyAfter() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        String channel = KeySlots.releaseChannel("hot");
        assertThat(subscribers(channel)).isZero();
        LockHandle holder = holderClient.acquire(List.of("hot"), 0, 30_000);
        CompletableFuture<Long> acquired = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        Thread waiter = waiterThread(waiterClient, "hot", acquired, handles);
        awaitParkedForNotification(waiter);
        assertThat(subscribers(channel)).isEqualTo(1);
        holder.close();
        acquired.get(10, TimeUnit.SECONDS);
        handles.get(0).close();
        // Lingers a few seconds for the next contended acquisition, then goes.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (subscribers(channel) != 0) {
            assertThat(System.nanoTime()).as("channel never unsubscribed").isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    private long subscribers(String channel) {
        List<?> reply = (List<?>) this.redis.command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }

    @Test
    void expiryPublishesNothingSoTheWaiterRetriesWhenTheLeaseRunsOut() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        holderClient.acquire(List.of("hot"), 0, 300); // never released: it expires
        long start = System.nanoTime();
        LockHandle handle = waiterClient.acquire(List.of("hot"), LONG_WAIT, 30_000);
        long waited = System.nanoTime() - start;
        assertThat(handle).isNotNull();
        assertThat(Duration.ofNanos(waited)).isBetween(Duration.ofMillis(250), Duration.ofMillis(900));
        handle.close();
    }

    @Test
    void droppedSubscriptionFallsBackToTimedRetriesAndResubscribes() throws Exception {
        RedisLockClient holderClient = client();
        RedisLockClient waiterClient = client();
        waiterClient.maxUnnotifiedWait(Duration.ofMillis(500));
        LockHandle holder = holderClient.acquire(List.of("hot"), 0, 30_000);
        CompletableFuture<Long> first = new CompletableFuture<>();
        List<LockHandle> handles = new ArrayList<>();
        Thread waiter = waiterThread(waiterClient, "hot", first, handles);
        awaitParkedForNotification(waiter);
        this.redis.command("CLIENT", "KILL", "TYPE", "pubsub");
        holder.close();
        assertThat(first.get(10, TimeUnit.SECONDS)).isNotNull();
        LockHandle second = handles.get(0);
        // Lettuce reconnects and resubscribes; the next wait is notified again.
        CompletableFuture<Long> next = new CompletableFuture<>();
        Thread nextWaiter = waiterThread(waiterClient, "hot-2", next, handles);
        nextWaiter.join(); // "hot-2" is free: taken at once
        LockHandle third = handles.get(1);
        CompletableFuture<Long> notified = new CompletableFuture<>();
        Thread blocked = waiterThread(client(), "hot-2", notified, handles);
        awaitParkedForNotification(blocked);
        long released = System.nanoTime();
        third.close();
        assertThat(Duration.ofNanos(notified.get(10, TimeUnit.SECONDS) - released)).isLessThan(Duration.ofMillis(300));
        second.close();
        handles.get(2).close();
    }

    /** Waits until the thread sleeps waiting for a release notification (not in a Redis call). */
    static void awaitParkedForNotification(Thread thread) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(thread.getState() == Thread.State.TIMED_WAITING
                && java.util.concurrent.locks.LockSupport.getBlocker(thread) instanceof ReleaseNotifier.Waiter)) {
            assertThat(System.nanoTime()).as("waiter never parked").isLessThan(deadline);
            Thread.onSpinWait();
        }
    }

    private static long field(String line, String name) {
        int start = line.indexOf(name) + name.length();
        int end = line.indexOf(',', start);
        return Long.parseLong(line.substring(start, (end < 0) ? line.length() : end));
    }

    private long scriptCalls() {
        long calls = 0;
        for (String line : ((String) this.redis.command("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                // Runs, not calls: an EVALSHA refused with NOSCRIPT is retried as EVAL.
                calls += field(line, "calls=") - field(line, "failed_calls=");
            }
        }
        return calls;
    }
}
